package game

import (
	"errors"
	"fmt"

	"tremor/bg"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// The whole-state encoding: a State as frame sync sends it to a client
// that joins or must resynchronise (docs/game.md §12 gives the layout).
// Player and entity states go as deltas from the zero state with bg's
// wire tables, the rest as the few bits each value needs; a value of
// zero costs one bit. Read is written for hostile input: every count and
// index is checked, strings are bounded, the game's invariants are
// checked, and nothing panics.

// StateVersion is the first byte of an encoded State. A reader refuses
// any other.
const StateVersion = 1

// MaxClassnameLen bounds an entity's classname in an encoded State.
const MaxClassnameLen = 64

// Widths of the small fields of the encoding.
const (
	kindBits   = 3 // entity kind, 0..kindTemp
	thinkBits  = 2 // think action, 0..thinkExplode
	stateBits  = 2 // client connection state, 0..clientInGame
	teamBits   = 2 // team, 0..bg.TeamSpectator
	skillBits  = 3 // bot skill, 0 (a human) or 1..5
	countBits  = 2 // the two-bit event counter
	entityBits = msg.EntityNumBits
)

// AppendConfig writes c: GameType, FragLimit, TimeLimit, Knockback,
// ForceRespawn, SpawnProtect, BotMinPlayers, BotSkill, MaxUnlag as
// 32-bit signed values (one bit for a zero), then FriendlyFire, Unlagged
// and ExternalBotInput as one bit each. The int fields travel in 32
// bits: the cvars that fill them are bounded far below.
func AppendConfig(w *msg.Writer, c *Config) {
	putInt(w, c.GameType)
	putInt(w, int32(c.FragLimit))
	putInt(w, int32(c.TimeLimit))
	putInt(w, c.Knockback)
	putInt(w, int32(c.ForceRespawn))
	putInt(w, c.SpawnProtect)
	putInt(w, int32(c.BotMinPlayers))
	putInt(w, int32(c.BotSkill))
	putInt(w, c.MaxUnlag)
	putBool(w, c.FriendlyFire)
	putBool(w, c.Unlagged)
	putBool(w, c.ExternalBotInput)
}

// ReadConfig reads what AppendConfig wrote into c. On error (the message
// ends early) c is unchanged.
func ReadConfig(r *msg.Reader, c *Config) error {
	var v Config
	v.GameType = getInt(r)
	v.FragLimit = int(getInt(r))
	v.TimeLimit = int(getInt(r))
	v.Knockback = getInt(r)
	v.ForceRespawn = int(getInt(r))
	v.SpawnProtect = getInt(r)
	v.BotMinPlayers = int(getInt(r))
	v.BotSkill = int(getInt(r))
	v.MaxUnlag = getInt(r)
	v.FriendlyFire = getBool(r)
	v.Unlagged = getBool(r)
	v.ExternalBotInput = getBool(r)
	if err := r.Err(); err != nil {
		return fmt.Errorf("game: reading a config: %w", err)
	}
	*c = v
	return nil
}

// Append writes the state s holds (see State; the layout is in
// docs/game.md §12). Player and entity states travel at the widths of
// bg's wire tables, as in snapshots: a value wider than its field (which
// the game never produces) would arrive cut to that width. Errors (the
// buffer is full, s holds nothing) stay in w.
func (s *State) Append(w *msg.Writer) {
	if !s.valid {
		// An empty State: a version no reader accepts.
		w.WriteBits(0, 8)
		return
	}
	w.WriteBits(StateVersion, 8)
	w.WriteBits(s.mapChecksum, 32)
	AppendConfig(w, &s.cfg)
	w.WriteBits(uint32(s.gametype), 8)
	var pcg [20]byte
	b, _ := s.pcg.AppendBinary(pcg[:0]) // "pcg:" and hi, lo big-endian
	for _, c := range b[4:] {
		w.WriteBits(uint32(c), 8)
	}

	lv := &s.lv
	putInt(w, lv.time)
	putInt(w, lv.prevTime)
	putInt(w, lv.startTime)
	putBool(w, lv.intermission)
	putInt(w, lv.intermissionTime)
	putBool(w, lv.exitSent)
	for _, v := range lv.teamScores {
		putInt(w, int32(v))
	}
	for k := range lv.scores {
		putInt(w, int32(lv.scores[k]))
		putBool(w, lv.scoresValid[k])
	}
	putBool(w, lv.scoresSet)
	putInt(w, lv.nextBotCheck)

	w.WriteBits(uint32(s.numEntities), entityBits)
	w.WriteBits(uint32(len(lv.itemEnts)), entityBits)
	for _, i := range lv.itemEnts {
		w.WriteBits(uint32(i), entityBits)
	}

	for n := range s.clients {
		cl := &s.clients[n]
		w.WriteBits(uint32(cl.state), stateBits)
		putInt(w, int32(cl.ping))
		if cl.state == clientFree {
			continue
		}
		putBool(w, cl.isBot)
		w.WriteBits(uint32(cl.skill), skillBits)
		w.WriteBits(uint32(cl.team), teamBits)
		w.WriteString(cl.name)
		w.WriteString(cl.userinfo)
		w.WriteString(cl.wantTeam)
		putInt(w, cl.lastEvent)
		putInt(w, cl.enterTime)
		putInt(w, cl.respawnTime)
		putInt(w, cl.deathTime)
		putInt(w, cl.protectUntil)
		putInt(w, cl.nextHealthTick)
		putInt(w, cl.lavaTime)
		putInt(w, cl.painTime)
		bg.PlayerStateTable.WriteDeltaPlayerState(w, nil, &s.ps[n])
	}

	for i := 0; i < s.numEntities; i++ {
		e, sh := &s.ents[i], &s.shared[i]
		putBool(w, e.inUse)
		if !e.inUse {
			putInt(w, e.freeTime)
			continue
		}
		w.WriteBits(uint32(e.kind), kindBits)
		w.WriteString(e.classname)
		putInt(w, e.eventTime)
		w.WriteBits(uint32(e.eventCount), countBits)
		putBool(w, e.freeAfterEvent)
		putInt(w, e.nextThink)
		w.WriteBits(uint32(e.think), thinkBits)
		w.WriteBits(uint32(e.owner), entityBits)
		putInt(w, e.item)
		putInt(w, e.damage)
		putInt(w, e.splash)
		putInt(w, e.radius)
		putInt(w, e.mod)
		putInt(w, e.splashMod)
		putInt(w, e.origin.X)
		putInt(w, e.origin.Y)
		putBool(w, sh.Linked)
		putInt(w, sh.SvFlags)
		putInt(w, sh.Mins.X)
		putInt(w, sh.Mins.Y)
		putInt(w, sh.Maxs.X)
		putInt(w, sh.Maxs.Y)
		bg.EntityStateTable.WriteEntity(w, nil, &sh.S, 0)
	}
}

// Read reads a State that Append wrote into s, checking it as hostile
// input: the version, every count and index, the ranges of the game's
// own small fields, string lengths, names and userinfo, and the game's
// invariants (client slot n is in use exactly when client n is
// connected, and then as a player whose PlayerState says n; an item
// entity is an item of bg.Items; a free slot holds nothing but the time
// it was freed). It does not know the map: compare MapChecksum with the
// game's, or read through Arena.ReadState. On error s holds nothing
// (LoadState refuses it) and the error says what was wrong where.
func (s *State) Read(r *msg.Reader) error {
	s.valid = false
	if err := s.read(r); err != nil {
		return fmt.Errorf("game: reading a state: %w", err)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("game: reading a state: %w", err)
	}
	s.valid = true
	return nil
}

func (s *State) read(r *msg.Reader) error {
	if v := r.ReadBits(8); v != StateVersion {
		if r.Err() != nil {
			return r.Err()
		}
		return fmt.Errorf("version %d, want %d", v, StateVersion)
	}
	s.mapChecksum = r.ReadBits(32)
	if err := ReadConfig(r, &s.cfg); err != nil {
		return err
	}
	s.gametype = int32(r.ReadBits(8))
	if s.gametype != bg.GTFFA && s.gametype != bg.GTTeam {
		return fmt.Errorf("game type %d", s.gametype)
	}
	pcg := [20]byte{'p', 'c', 'g', ':'}
	for k := 4; k < len(pcg); k++ {
		pcg[k] = byte(r.ReadBits(8))
	}
	if err := s.pcg.UnmarshalBinary(pcg[:]); err != nil {
		return err // cannot happen: the length and the prefix are right
	}

	items := s.lv.itemEnts[:0]
	s.lv = level{}
	lv := &s.lv
	lv.time = getInt(r)
	lv.prevTime = getInt(r)
	lv.startTime = getInt(r)
	lv.intermission = getBool(r)
	lv.intermissionTime = getInt(r)
	lv.exitSent = getBool(r)
	for k := range lv.teamScores {
		lv.teamScores[k] = int(getInt(r))
	}
	for k := range lv.scores {
		lv.scores[k] = int(getInt(r))
		lv.scoresValid[k] = getBool(r)
	}
	lv.scoresSet = getBool(r)
	lv.nextBotCheck = getInt(r)

	n := int(r.ReadBits(entityBits))
	if r.Err() != nil {
		return r.Err()
	}
	if n < bg.MaxClients || n > MaxNormalEntities {
		return fmt.Errorf("%d entity slots in use, want %d to %d", n, bg.MaxClients, MaxNormalEntities)
	}
	s.numEntities = n
	numItems := int(r.ReadBits(entityBits))
	if numItems > n-bg.MaxClients {
		return fmt.Errorf("%d items in %d entity slots", numItems, n)
	}
	for k := 0; k < numItems; k++ {
		i := int(r.ReadBits(entityBits))
		if i < bg.MaxClients || i >= n {
			return fmt.Errorf("item %d: entity %d outside %d to %d", k, i, bg.MaxClients, n-1)
		}
		items = append(items, i)
	}
	lv.itemEnts = items
	if r.Err() != nil {
		return r.Err()
	}

	for c := range s.clients {
		if err := s.readClient(r, c); err != nil {
			return fmt.Errorf("client %d: %w", c, err)
		}
	}

	if cap(s.ents) < n {
		s.ents = make([]entity, n)
		s.shared = make([]SharedEntity, n)
	}
	s.ents, s.shared = s.ents[:n], s.shared[:n]
	for i := 0; i < n; i++ {
		if err := s.readEntity(r, i); err != nil {
			return fmt.Errorf("entity %d: %w", i, err)
		}
	}
	return s.check()
}

// readClient reads client slot c.
func (s *State) readClient(r *msg.Reader, c int) error {
	cl, ps := &s.clients[c], &s.ps[c]
	*cl = client{}
	*ps = bg.PlayerState{}
	cl.state = int(r.ReadBits(stateBits))
	cl.ping = int(getInt(r))
	if r.Err() != nil {
		return r.Err()
	}
	if cl.state > clientInGame {
		return fmt.Errorf("connection state %d", cl.state)
	}
	if cl.state == clientFree {
		return nil
	}
	cl.isBot = getBool(r)
	cl.skill = int(r.ReadBits(skillBits))
	cl.team = int32(r.ReadBits(teamBits))
	cl.name = r.ReadString()
	cl.userinfo = r.ReadString()
	cl.wantTeam = r.ReadString()
	cl.lastEvent = getInt(r)
	cl.enterTime = getInt(r)
	cl.respawnTime = getInt(r)
	cl.deathTime = getInt(r)
	cl.protectUntil = getInt(r)
	cl.nextHealthTick = getInt(r)
	cl.lavaTime = getInt(r)
	cl.painTime = getInt(r)
	bg.PlayerStateTable.ReadDeltaPlayerState(r, nil, ps)
	if r.Err() != nil {
		return r.Err()
	}
	switch {
	case cl.skill > 5 || cl.isBot && cl.skill < 1:
		return fmt.Errorf("skill %d", cl.skill)
	case cl.name == "" || sanitizeName(cl.name) != cl.name:
		return fmt.Errorf("name %q is not one the game gives", cl.name)
	case infostr.Validate(cl.userinfo) != nil:
		return errors.New("invalid userinfo")
	case ps.ClientNum != int32(c):
		return fmt.Errorf("player state of client %d", ps.ClientNum)
	}
	return nil
}

// readEntity reads entity slot i.
func (s *State) readEntity(r *msg.Reader, i int) error {
	e, sh := &s.ents[i], &s.shared[i]
	*e = entity{}
	*sh = SharedEntity{}
	e.inUse = getBool(r)
	if !e.inUse {
		e.freeTime = getInt(r)
		return r.Err()
	}
	e.kind = int(r.ReadBits(kindBits))
	e.classname = r.ReadString()
	e.eventTime = getInt(r)
	e.eventCount = int32(r.ReadBits(countBits))
	e.freeAfterEvent = getBool(r)
	e.nextThink = getInt(r)
	e.think = int(r.ReadBits(thinkBits))
	e.owner = int(r.ReadBits(entityBits))
	e.item = getInt(r)
	e.damage = getInt(r)
	e.splash = getInt(r)
	e.radius = getInt(r)
	e.mod = getInt(r)
	e.splashMod = getInt(r)
	e.origin.X = getInt(r)
	e.origin.Y = getInt(r)
	sh.Linked = getBool(r)
	sh.SvFlags = getInt(r)
	sh.Mins.X = getInt(r)
	sh.Mins.Y = getInt(r)
	sh.Maxs.X = getInt(r)
	sh.Maxs.Y = getInt(r)
	if bg.EntityStateTable.ReadEntity(r, nil, &sh.S, 0) {
		return errors.New("entity state coded as removed")
	}
	sh.S.Number = int32(i)
	if r.Err() != nil {
		return r.Err()
	}
	switch {
	case e.kind == kindFree || e.kind > kindTemp:
		return fmt.Errorf("kind %d", e.kind)
	case e.think > thinkExplode:
		return fmt.Errorf("think %d", e.think)
	case e.item < 0 || int(e.item) >= len(bg.Items):
		return fmt.Errorf("item %d", e.item)
	case len(e.classname) > MaxClassnameLen:
		return fmt.Errorf("classname of %d bytes", len(e.classname))
	case (i < bg.MaxClients) != (e.kind == kindPlayer):
		return fmt.Errorf("kind %s in slot %d", kindName(e.kind), i)
	}
	return nil
}

// check verifies what ties the clients, the entities and the items
// together.
func (s *State) check() error {
	for c := range s.clients {
		if (s.clients[c].state != clientFree) != s.ents[c].inUse {
			return fmt.Errorf("client %d: connection state %d with entity %d in use %v",
				c, s.clients[c].state, c, s.ents[c].inUse)
		}
	}
	for k, i := range s.lv.itemEnts {
		e := &s.ents[i]
		if !e.inUse || e.kind != kindItem || e.item == 0 {
			return fmt.Errorf("item %d: entity %d is not an item", k, i)
		}
	}
	return nil
}

// ReadState reads a State that AppendState (or State.Append) wrote and
// puts the game in it (LoadState). It refuses a state of another map.
// On error the game is unchanged and the error says what was wrong
// where.
func (g *Arena) ReadState(r *msg.Reader) error {
	if g.scratch == nil {
		g.scratch = NewState()
	}
	s := g.scratch
	if err := s.Read(r); err != nil {
		return err
	}
	if s.mapChecksum != g.m.Checksum {
		s.valid = false
		return fmt.Errorf("game: reading a state: it is of the map with checksum %d, this game runs %d", s.mapChecksum, g.m.Checksum)
	}
	g.LoadState(s)
	return nil
}

// AppendState writes the game's state as State.Append does (through a
// State of the game's own, allocated at the first call).
func (g *Arena) AppendState(w *msg.Writer) {
	if g.scratch == nil {
		g.scratch = NewState()
	}
	g.SaveState(g.scratch)
	g.scratch.Append(w)
}

// putInt writes v as one zero bit, or a one bit and its 32 bits.
func putInt(w *msg.Writer, v int32) {
	if v == 0 {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	w.WriteBits(uint32(v), 32)
}

// getInt reads what putInt wrote.
func getInt(r *msg.Reader) int32 {
	if r.ReadBits(1) == 0 {
		return 0
	}
	return int32(r.ReadBits(32))
}

func putBool(w *msg.Writer, b bool) {
	if b {
		w.WriteBits(1, 1)
	} else {
		w.WriteBits(0, 1)
	}
}

func getBool(r *msg.Reader) bool { return r.ReadBits(1) == 1 }

// kindName names an entity kind in reports.
func kindName(k int) string {
	switch k {
	case kindFree:
		return "free"
	case kindPlayer:
		return "player"
	case kindItem:
		return "item"
	case kindMissile:
		return "missile"
	case kindTemp:
		return "temp"
	}
	return "kind " + itoa(k)
}

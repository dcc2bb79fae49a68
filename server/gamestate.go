package server

import (
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/common/console"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// SnapshotEntitiesPerClient sizes the snapshot entity ring: it holds
// sv_maxclients × PacketBackup × this many entities (Quake III sized it
// with MAX_SNAPSHOT_ENTITIES). A client whose snapshots are larger on
// average still works: its old snapshots' entities are overwritten
// sooner, and it gets full snapshots more often.
const SnapshotEntitiesPerClient = 64

// spawnServer loads map name and starts a match on it (SV_SpawnServer).
// Clients stay connected: each is sent the new gamestate.
func (s *Server) spawnServer(name string) error {
	s.t.ApplyLatched()
	m, file, err := loadLevelMap(s.cfg.MapDir, name)
	if err != nil {
		return fmt.Errorf("server: map %s: %w", name, err)
	}
	if s.sv != nil {
		s.sv.game.Shutdown()
	} else {
		s.svs.time = s.cfg.ClockStart
	}
	maxClients := s.cfg.MaxClients
	lv := &level{name: name, m: m, file: file, maxClients: maxClients}
	ring := maxClients * proto.PacketBackup * SnapshotEntitiesPerClient
	if s.sv != nil && len(s.sv.snapEnts) == ring {
		lv.snapEnts = s.sv.snapEnts // reuse: no frame of the old map is ever a delta base again
	} else {
		lv.snapEnts = make([]bg.EntityState, ring)
	}
	s.sv = lv
	s.newGame(lv)
	s.startMatch(false)
	s.logf("map %s loaded (server id %d, %d clients max)", name, lv.serverID, maxClients)
	s.heartbeatSoon()
	return nil
}

// mapRestart restarts the match on the same map (SV_MapRestart_f): a new
// server id, the game initialised again with restart set, and every
// client sent the new gamestate.
func (s *Server) mapRestart() {
	s.t.ApplyLatched()
	s.sv.game.Shutdown()
	if s.cfg.NetModel != s.sv.netModel {
		s.newGame(s.sv) // sv_netmodel changed: the clients get a new gamestate anyway
	}
	s.startMatch(true)
	s.logf("map_restart (server id %d)", s.sv.serverID)
}

// restartClock restarts the map with the frame clock back at 0 before
// the clock can wrap (Quake III's "Restarting server due to time
// wrapping", which shut the server down and loaded the map again): the
// clients stay connected, as map_restart keeps them, and each is told
// why before its new gamestate, whose snapshots start the client's
// clock again.
func (s *Server) restartClock() {
	s.logf("the clock reached %d ms, near the limit of its 32 bits: restarting the map with the clock at 0", s.svs.time)
	days := strconv.FormatFloat(float64(s.svs.time)/86400000, 'f', 1, 64)
	s.broadcastCommand("print " + cmdargs.QuoteText("Server restarting the map: its clock reached "+days+" days and would wrap"+`\n`))
	s.svs.time = 0
	s.mapRestart()
}

// startMatch initialises the game on the loaded map: server id, checksum
// feed, configstrings, baselines, then the clients (bots begin at once,
// humans get a gamestate and begin when their first usercmd of the new
// server id arrives).
func (s *Server) startMatch(restart bool) {
	lv := s.sv
	s.svs.serverID++
	lv.serverID = s.svs.serverID
	lv.checksumFeed = s.svs.rng.Int32()
	lv.scramble = s.cfg.Scramble
	lv.gamestate.Reset()
	s.svs.snapFlagCount ^= proto.SnapServerCount
	lv.loading = true
	lv.ents, lv.numEntities, lv.ps = nil, 0, nil
	lv.game.Init(s.svs.time, s.svs.rng.Uint64(), restart)
	s.setServerConfigstrings()
	s.createBaselines()
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if !c.connected() {
			continue
		}
		if denied := lv.game.ClientConnect(i, c.userinfo, c.bot); denied != "" {
			s.dropClient(c, denied)
			continue
		}
		if c.bot {
			lv.game.ClientBegin(i)
			continue
		}
		c.state = StateConnected
		c.deltaMessage = -1
		c.lastUsercmd = bg.UserCmd{}
	}
	lv.loading = false
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateConnected && !c.bot {
			s.sendGamestate(c)
		}
	}
}

// createBaselines makes every linked entity's state its baseline: a
// client's first sight of an entity is delta-coded from it
// (SV_CreateBaseline).
func (s *Server) createBaselines() {
	lv := s.sv
	for i := 0; i < lv.numEntities && i < proto.EntityEnd; i++ {
		e := &lv.ents[i]
		if !e.Linked {
			continue
		}
		lv.gamestate.Baselines[i] = e.S
		lv.gamestate.Baselines[i].Number = int32(i)
	}
}

// serverInfo builds the serverinfo string: the ServerInfo cvars, the map
// name and the protocol.
func (s *Server) serverInfo() string {
	// What a client needs to play goes first — the map, the protocol,
	// the frame period and the network model of the running level — so
	// that a serverinfo too long for infostr.MaxInfoString leaves out a
	// cvar of the ServerInfo ones that follow (the console says which),
	// never the map. Latched cvars keep the level's value until the next
	// map.
	var info string
	set := func(k, v string) {
		if n, err := infostr.SetValueForKey(info, k, v); err == nil {
			info = n
		}
	}
	if s.sv != nil {
		set("mapname", s.sv.name)
		set("mapchecksum", s.MapChecksum())
	}
	set("protocol", strconv.Itoa(proto.Version))
	set("sv_fps", strconv.Itoa(s.cfg.FPS))
	if s.sv != nil && s.sv.fs != nil {
		set(proto.NetModelKey, proto.NetModelFrameSync)
		set("sv_frameHashEvery", strconv.Itoa(int(s.sv.fs.HashEvery())))
	}
	return s.t.AppendInfo(info, console.ServerInfo)
}

// systemInfo builds the systeminfo string, which the client applies to
// itself: the server id the client echoes in every message, and whether
// messages are scrambled.
func (s *Server) systemInfo() string {
	return proto.FormatSystemInfo(s.sv.serverID, s.sv.scramble)
}

// setServerConfigstrings refreshes the configstrings the engine owns.
func (s *Server) setServerConfigstrings() {
	if s.sv == nil {
		return
	}
	s.setConfigstring(bg.CSServerInfo, s.serverInfo())
	s.setConfigstring(bg.CSSystemInfo, s.systemInfo())
}

// setConfigstring changes a configstring and, unless a map is loading,
// marks it changed for every client that has a gamestate
// (SV_SetConfigstring): the newest value goes in the client's next
// message once it is in the game (flushCommands).
func (s *Server) setConfigstring(index int, value string) {
	lv := s.sv
	if lv == nil || uint(index) >= bg.MaxConfigstrings {
		s.logf("configstring %d out of range", index)
		return
	}
	if len(value) > msg.MaxBigStringChars {
		s.logf("configstring %d too long (%d bytes)", index, len(value))
		return
	}
	if lv.gamestate.Configstrings[index] == value {
		return
	}
	lv.gamestate.Configstrings[index] = value
	if lv.loading {
		return
	}
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.bot || c.chan_ == nil || c.state < StatePrimed {
			continue
		}
		c.markConfigstring(index)
	}
}

// sendGamestate sends c the gamestate of the map (SV_SendClientGameState):
// the unacknowledged reliable commands, then the configstrings, baselines,
// client number and checksum feed. The client is primed from now on.
func (s *Server) sendGamestate(c *client) {
	lv := s.sv
	if err := c.chan_.Flush(); err != nil {
		s.svs.stats.BadPackets++
	}
	c.state = StatePrimed
	c.clearConfigstrings() // the gamestate carries them
	s.gamestateCarrier(c)  // before the flush: the carrier of what follows
	s.flushCommands(c)
	seq := int32(c.chan_.OutgoingSequence())
	c.gamestateMessageNum = seq
	c.deltaMessage = -1
	c.frames[seq&proto.PacketMask].messageNum = -1
	c.resetFrames()

	w := s.messageTo(c)
	proto.WriteReliableAck(w, c.lastClientCommand)
	// The client counts every command up to CommandSequence as received:
	// the commands that did not fit ahead of the gamestate come after it.
	gs := &lv.gamestate
	gs.CommandSequence = s.writeServerCommands(c, w, len(s.msgBuf)/2)
	gs.ClientNum = int32(c.num)
	gs.ChecksumFeed = lv.checksumFeed
	proto.WriteGamestate(w, gs)
	w.WriteUint8(proto.SvcEOF)
	if c.acks != nil {
		c.acks.gamestate = false
	}
	if w.Err() != nil {
		s.dropClient(c, "gamestate does not fit in a message")
		return
	}
	// The client reads the gamestate message with the setting of the
	// gamestate it had before; what follows, with this one's.
	s.transmit(c, w.Bytes(), c.scrambleKnown == scrambleOn)
	c.pendingGamestate = true
	c.scramblePending = scrambleOff
	if lv.scramble {
		c.scramblePending = scrambleOn
	}
	c.stats.gamestates++
	// Messages to a client not in the game go every
	// NotActiveSnapshotMsec; acknowledging one of them without the new
	// server id asks for the gamestate again.
	c.nextSnapshotTime = s.svs.time + NotActiveSnapshotMsec
}

// confirmGamestate notes that c sent a message with the current server
// id: it has the latest gamestate, and applies its scramble setting.
func (c *client) confirmGamestate() {
	if c.pendingGamestate {
		c.pendingGamestate = false
		c.scrambleKnown = c.scramblePending
	}
}

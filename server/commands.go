package server

import (
	"sort"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// botNames are the names addbot gives bots when none is given.
var botNames = [...]string{
	"Rook", "Vesper", "Quill", "Talon", "Wisp", "Cobalt", "Sable", "Thistle",
	"Umber", "Gale", "Basalt", "Marlin", "Fennel", "Ochre", "Juniper", "Slate",
}

// addCommands registers the server's console commands in its table, as
// commands rcon may run too. A name the table has already is left to its
// owner: the window client keeps its own map, say, quit and killserver.
// The table's built-in commands (set, cvarlist, exec, echo, help, cmdlist,
// vstr, ...) serve the server as they are; exec reads sv_configdir
// (configFS).
func (s *Server) addCommands() {
	add := func(name, help string, fn func(a *cmdargs.Args)) {
		if s.t.HasCommand(name) {
			return
		}
		s.t.AddRemoteCommand(name, help, fn)
		s.added = append(s.added, name)
	}
	add("map", "map NAME: load a map; clients stay connected and get its gamestate", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			s.logf("usage: map NAME")
			return
		}
		if err := s.spawnServer(a.Argv(1)); err != nil {
			s.logf("%v", err)
		}
	})
	add("map_restart", "map_restart: restart the match on the same map (new server id, new gamestates)", func(*cmdargs.Args) {
		if s.sv == nil {
			s.logf("Server is not running.")
			return
		}
		s.mapRestart()
	})
	add("desync", "desync: frame sync only: at the next frame that carries a hash, change the server's game by an amount no input decides, so that a class sees the clients' state hashes catch it and name the entity and field", func(*cmdargs.Args) {
		if s.sv == nil || s.sv.fs == nil {
			s.logf("desync: only in frame sync (sv_netmodel framesync and a map_restart)")
			return
		}
		// At the next frame that carries a hash: a change the next frames
		// wipe out (a velocity the movement sets again) would otherwise
		// go unseen.
		rec := s.sv.fs
		frame := rec.Newest() + 1
		if k := frame % rec.HashEvery(); k != 0 {
			frame += rec.HashEvery() - k
		}
		at := s.svs.time + (frame-rec.Newest())*s.frameMsec()
		rec.Game().InjectNonDeterminism(at)
		s.logf("desync: the server's game parts from its clients' at time %d (frame %d)", at, frame)
	})
	add("status", "status: list the clients", func(*cmdargs.Args) { s.printStatus() })
	add("serverinfo", "serverinfo: print the serverinfo string", func(*cmdargs.Args) {
		s.printInfo("Server info settings", s.serverInfo())
	})
	add("systeminfo", "systeminfo: print the systeminfo string", func(*cmdargs.Args) {
		if s.sv != nil {
			s.printInfo("System info settings", s.systemInfo())
		}
	})
	add("kick", "kick NAME|NUM|allbots|all: drop a client", func(a *cmdargs.Args) { s.kick(a.Argv(1)) })
	add("clientkick", "clientkick NUM: drop a client by number", func(a *cmdargs.Args) {
		n, ok := atoiStrict(a.Argv(1))
		if !ok || n >= len(s.svs.clients) || !s.svs.clients[n].connected() {
			s.logf("usage: clientkick NUM (a connected client)")
			return
		}
		s.dropClient(&s.svs.clients[n], "was kicked")
	})
	add("addbot", "addbot [NAME [SKILL]] | addbot COUNT: add bots to the game", func(a *cmdargs.Args) { s.addBots(*a) })
	add("say", "say TEXT: chat to every client as the server", func(a *cmdargs.Args) {
		if s.sv == nil {
			return
		}
		text := a.ArgsFrom(1)
		s.logf("broadcast: server: %s", text)
		s.broadcastCommand("chat " + cmdargs.QuoteText("server: "+text))
	})
	quit := func(*cmdargs.Args) { s.quit = true }
	add("quit", "quit: disconnect every client and stop the server", quit)
	add("killserver", "killserver: disconnect every client and stop the server", quit)
}

// removeCommands takes the commands addCommands added out of the table.
func (s *Server) removeCommands() {
	for _, name := range s.added {
		s.t.RemoveCommand(name)
	}
	s.added = nil
}

// execRemote runs rcon text through the table, marked remote, and
// returns what it printed (which the log gets too).
func (s *Server) execRemote(text string) string {
	var out strings.Builder
	s.redirect = &out
	s.t.ExecuteRemote(text, logWriter{s})
	s.redirect = nil
	return out.String()
}

// logWriter writes what the table prints to the server's log (and the
// rcon reply being built).
type logWriter struct{ s *Server }

func (w logWriter) Write(p []byte) (int, error) {
	w.s.logf("%s", p)
	return len(p), nil
}

// applyCvar is the apply hook of the server's cvars: their field has
// just changed.
func (s *Server) applyCvar(*console.Cvar) {
	s.applyNetsim()
	if s.sv != nil {
		s.sv.game.SetConfig(s.cfg.Game)
		s.setServerConfigstrings()
	}
}

// printStatus prints the client table (SV_Status_f).
func (s *Server) printStatus() {
	if s.sv == nil {
		s.logf("Server is not running.")
		return
	}
	s.logf("map: %s  server id: %d  time: %d", s.sv.name, s.sv.serverID, s.svs.time)
	s.logf("num score ping name             state     lastmsg address               qport  rate")
	s.logf("--- ----- ---- ---------------- --------- ------- --------------------- ----- -----")
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateFree {
			continue
		}
		ci := s.clientInfo(c)
		score := 0
		if i < len(s.sv.ps) {
			score = int(s.sv.ps[i].Persistant[bg.PersScore])
		}
		addr, qport, lastmsg := "bot", "", ""
		if c.chan_ != nil {
			addr, qport = ci.Addr.String(), strconv.Itoa(int(ci.Qport))
			lastmsg = strconv.Itoa(int(s.svs.now - c.lastPacketTime))
		}
		s.logf("%3d %5d %4d %-16.16s %-9s %7s %-21s %5s %5d", i, score, c.ping, ci.Name, c.state, lastmsg, addr, qport, ci.Rate)
	}
}

// printInfo prints an info string's pairs, sorted by key.
func (s *Server) printInfo(title, info string) {
	s.logf("%s:", title)
	pairs, _ := infostr.Pairs(info)
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].Key < pairs[j].Key })
	for _, p := range pairs {
		s.logf("%-20s %s", p.Key, p.Value)
	}
}

// kick drops a client by number, name, or every bot or every client.
func (s *Server) kick(arg string) {
	if arg == "" {
		s.logf("usage: kick NAME|NUM|allbots|all")
		return
	}
	all, bots := strings.EqualFold(arg, "all"), strings.EqualFold(arg, "allbots")
	if all || bots {
		for i := range s.svs.clients {
			c := &s.svs.clients[i]
			if c.connected() && (all || c.bot) {
				s.dropClient(c, "was kicked")
			}
		}
		return
	}
	c := s.clientByArg(arg)
	if c == nil {
		s.logf("no client %q", arg)
		return
	}
	s.dropClient(c, "was kicked")
}

// addBots runs addbot: no argument adds one bot; a number alone adds that
// many; otherwise the arguments are a name and a skill (1 to 5).
func (s *Server) addBots(args cmdargs.Args) {
	if s.sv == nil {
		s.logf("Server is not running.")
		return
	}
	skill := s.cfg.Game.BotSkill
	count := 1
	name := ""
	if n, ok := atoiStrict(args.Argv(1)); ok && args.Argc() == 2 {
		count = max(min(n, bg.MaxClients), 0)
	} else if args.Argc() >= 2 {
		name = args.Argv(1)
		if k, err := strconv.Atoi(args.Argv(2)); err == nil {
			skill = k
		}
	}
	for range count {
		bn := name
		if bn == "" {
			bn = s.freeBotName()
		}
		n, err := s.sv.game.AddBot(bn, skill)
		if err != nil {
			s.logf("addbot: %v", err)
			return
		}
		s.logf("client %d is a bot: %s (skill %d)", n, s.sv.game.ClientName(n), max(1, min(skill, 5)))
	}
}

// freeBotName returns the first bot name nobody uses.
func (s *Server) freeBotName() string {
	for _, n := range botNames {
		if s.clientByArg(n) == nil {
			return n
		}
	}
	return botNames[0]
}

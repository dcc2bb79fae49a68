package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/net/oob"
)

// Console limits.
const (
	// MaxExecDepth bounds exec files executing exec files.
	MaxExecDepth = 8
	// MaxExecFile is the largest file exec reads, in bytes.
	MaxExecFile = 64 << 10
)

// botNames are the names addbot gives bots when none is given.
var botNames = [...]string{
	"Rook", "Vesper", "Quill", "Talon", "Wisp", "Cobalt", "Sable", "Thistle",
	"Umber", "Gale", "Basalt", "Marlin", "Fennel", "Ochre", "Juniper", "Slate",
}

// commandHelp is the server's console commands and their usage, for help.
var commandHelp = [][2]string{
	{"map NAME", "load a map; clients stay connected and get its gamestate"},
	{"map_restart", "restart the match on the same map (new server id, new gamestates)"},
	{"status", "list the clients"},
	{"serverinfo", "print the serverinfo string"},
	{"systeminfo", "print the systeminfo string"},
	{"kick NAME|NUM|allbots|all", "drop a client"},
	{"clientkick NUM", "drop a client by number"},
	{"addbot [NAME [SKILL]] | addbot COUNT", "add bots to the game"},
	{"say TEXT", "chat to every client as the server"},
	{"set NAME VALUE", "set a server cvar (also: NAME VALUE; NAME alone prints it)"},
	{"cvarlist", "list the server cvars"},
	{"exec FILE", "run the commands of a file"},
	{"echo TEXT", "print TEXT"},
	{"quit", "disconnect every client and stop the server"},
	{"help", "this list"},
}

// execText runs console text: commands separated by newlines or by ';'
// outside double quotes.
func (s *Server) execText(text string, depth int) {
	start, quoted := 0, false
	for i := 0; i <= len(text); i++ {
		if i < len(text) {
			switch text[i] {
			case '"':
				quoted = !quoted
				continue
			case ';':
				if quoted {
					continue
				}
			case '\n', '\r':
			default:
				continue
			}
		}
		if line := strings.TrimSpace(text[start:i]); line != "" {
			s.execute(line, depth)
		}
		if i < len(text) && text[i] != ';' {
			quoted = false
		}
		start = i + 1
	}
}

// execute runs one console command.
func (s *Server) execute(line string, depth int) {
	args := oob.Tokenize(line)
	if args.Argc() == 0 {
		return
	}
	switch strings.ToLower(args.Argv(0)) {
	case "map":
		if args.Argc() < 2 {
			s.logf("usage: map NAME")
			return
		}
		if err := s.spawnServer(args.Argv(1)); err != nil {
			s.logf("%v", err)
		}
	case "map_restart":
		if s.sv == nil {
			s.logf("Server is not running.")
			return
		}
		s.mapRestart()
	case "status":
		s.printStatus()
	case "serverinfo":
		s.printInfo("Server info settings", s.serverInfo())
	case "systeminfo":
		if s.sv != nil {
			s.printInfo("System info settings", s.systemInfo())
		}
	case "kick":
		s.kick(args.Argv(1))
	case "clientkick":
		n, ok := atoiStrict(args.Argv(1))
		if !ok || n >= len(s.svs.clients) || !s.svs.clients[n].connected() {
			s.logf("usage: clientkick NUM (a connected client)")
			return
		}
		s.dropClient(&s.svs.clients[n], "was kicked")
	case "addbot":
		s.addBots(args)
	case "say":
		if s.sv == nil {
			return
		}
		text := quoteSafe(args.ArgsFrom(1))
		s.logf("broadcast: server: %s", text)
		s.broadcastCommand(`chat "server: ` + text + `"`)
	case "set", "seta", "sets":
		if args.Argc() < 3 {
			s.logf("usage: set NAME VALUE")
			return
		}
		if err := s.SetCvar(args.Argv(1), args.ArgsFrom(2)); err != nil {
			s.logf("%v", err)
		}
	case "cvarlist":
		for i := range cvarTable {
			d := &cvarTable[i]
			s.logf("%-18s %q", d.Name, d.get(&s.cfg))
		}
	case "exec":
		s.execFile(args.Argv(1), depth)
	case "echo":
		s.logf("%s", args.ArgsFrom(1))
	case "quit", "killserver":
		s.quit = true
	case "help", "cmdlist":
		for _, h := range commandHelp {
			s.logf("%-38s %s", h[0], h[1])
		}
	default:
		name := args.Argv(0)
		if d := findCvar(name); d != nil {
			if args.Argc() == 1 {
				s.logf("%q is %q, default %q: %s", d.Name, d.get(&s.cfg), d.Default, d.Help)
				return
			}
			if err := s.SetCvar(name, args.ArgsFrom(1)); err != nil {
				s.logf("%v", err)
			}
			return
		}
		s.logf("Unknown command %q", name)
	}
}

// SetCvar sets a server cvar and applies it at once (latched cvars at the
// next map). Call it on the server goroutine; other goroutines use
// Exec("set NAME VALUE").
func (s *Server) SetCvar(name, value string) error {
	d := findCvar(name)
	if d == nil {
		return fmt.Errorf("server: no cvar %q", name)
	}
	if s.remote && d.Name == "sv_configdir" {
		return fmt.Errorf("server: %s cannot be set through rcon", d.Name)
	}
	old := d.get(&s.cfg)
	if err := d.set(&s.cfg, value); err != nil {
		return err
	}
	if d.get(&s.cfg) == old {
		return nil
	}
	if d.Latched && s.sv != nil {
		s.logf("%s will be changed at the next map or map_restart.", d.Name)
	}
	s.applyNetsim()
	if s.sv != nil {
		s.sv.game.SetConfig(s.cfg.Game)
		s.setServerConfigstrings()
	}
	if s.OnCvar != nil {
		s.OnCvar(d.Name, d.get(&s.cfg))
	}
	return nil
}

// execFile runs the commands of a config file (exec NAME). NAME is
// read from sv_configdir: ".cfg" is added when it has no extension, and
// only a regular file named *.cfg of at most MaxExecFile bytes, inside
// that directory (no absolute path, no "..", no symbolic link leading
// out), is read. So rcon exec cannot read the host's other files, nor
// hang on a FIFO or a device.
func (s *Server) execFile(name string, depth int) {
	if name == "" {
		s.logf("usage: exec FILE")
		return
	}
	if depth >= MaxExecDepth {
		s.logf("exec %s: nested too deep", name)
		return
	}
	data, err := readConfigFile(s.cfg.ConfigDir, name)
	if err != nil {
		s.logf("exec %s: %v", name, err)
		return
	}
	s.logf("execing %s", name)
	s.execText(string(data), depth+1)
}

// readConfigFile reads config file name from dir, as execFile describes.
func readConfigFile(dir, name string) ([]byte, error) {
	if path.Ext(name) == "" {
		name += ".cfg"
	}
	if !strings.EqualFold(path.Ext(name), ".cfg") {
		return nil, errors.New("only .cfg files can be executed")
	}
	if filepath.IsAbs(name) || strings.ContainsRune(name, '\\') || !filepath.IsLocal(name) {
		return nil, errors.New("not a file name inside sv_configdir")
	}
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > MaxExecFile {
		return nil, fmt.Errorf("larger than %d bytes", MaxExecFile)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since Stat: check what was opened.
	if opened, err := f.Stat(); err != nil || !opened.Mode().IsRegular() || !os.SameFile(info, opened) {
		return nil, errors.New("file changed while opening it")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxExecFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxExecFile {
		return nil, fmt.Errorf("larger than %d bytes", MaxExecFile)
	}
	return data, nil
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
	pairs, _ := oob.Pairs(info)
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
func (s *Server) addBots(args oob.Args) {
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

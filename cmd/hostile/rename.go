package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"tremor/net/cmdargs"
)

// renameFloodResult is what renameflood prints.
type renameFloodResult struct {
	Mode   string `json:"mode"`
	Server string `json:"server"`
	Count  int    `json:"count"`
	// Refused is the server's answer to connect when it refused it.
	Refused   string `json:"refused,omitempty"`
	ServerID  int32  `json:"server_id"`
	Scramble  bool   `json:"scramble"`
	ClientNum int32  `json:"client_num"`
	// Entered: the client was in the game (a snapshot without
	// SnapNotActive had come) when it sent the flood.
	Entered bool `json:"entered"`
	// MessageBytes is the flood message's body; Packets the UDP packets
	// (fragments) it went out in.
	MessageBytes int    `json:"message_bytes"`
	Packets      uint64 `json:"packets"`
	// FirstCommand and LastCommand are the flood's client command
	// sequences; Acknowledged the last client command the server
	// acknowledged by the end.
	FirstCommand int32 `json:"first_command"`
	LastCommand  int32 `json:"last_command"`
	Acknowledged int32 `json:"acknowledged"`
	// Dropped: the server dropped the client (DropReason says why);
	// DroppedAfterS is how long after the flood.
	Dropped       bool    `json:"dropped"`
	DropReason    string  `json:"drop_reason,omitempty"`
	DroppedAfterS float64 `json:"dropped_after_s,omitempty"`
	// ServerCommands counts the server commands received after the
	// flood, CommandKinds them by first word, Gaps the sequence gaps.
	ServerCommands int            `json:"server_commands"`
	CommandKinds   map[string]int `json:"command_kinds"`
	Gaps           int            `json:"server_command_gaps"`
	// RenamesSeen is how many distinct flood names (prefix + number)
	// appeared in server commands: the renames the server executed and
	// told the clients about.
	RenamesSeen int `json:"renames_seen"`
	// Prints are the distinct print texts received after the flood (the
	// first 10), FloodNotices those that mention flooding.
	Prints       []string `json:"prints"`
	FloodNotices int      `json:"flood_notices"`
	WatchS       float64  `json:"watch_s"`
	Errors       []string `json:"errors,omitempty"`
}

func runRenameFlood(args []string, _, stderr io.Writer) (any, error) {
	fs, server := newFlags("renameflood", stderr)
	count := fs.Int("count", 300, "userinfo renames in the one message")
	prefix := fs.String("prefix", "X", "the new names are PREFIX1 ... PREFIXcount")
	name := fs.String("name", "Renamer", "the client's name before the flood")
	enter := fs.Bool("enter", true, "enter the game (send usercmds until a snapshot says active) before the flood; false: send no usercmd (a server that puts a client in the game at its first message with the current server id will have done so anyway)")
	watch := fs.Duration("watch", 5*time.Second, "how long to stay and watch after the flood")
	timeout := fs.Duration("timeout", 10*time.Second, "limit of each handshake step")
	addr, err := parseFlags(fs, server, args)
	if err != nil {
		return nil, err
	}
	if *count < 1 || *prefix == "" || strings.ContainsAny(*prefix, `\;"`) {
		fmt.Fprintln(stderr, "hostile renameflood: -count must be at least 1 and -prefix non-empty, without \\ ; or \"")
		return nil, errUsage
	}

	c, err := newGameClient(addr, *name)
	if err != nil {
		return nil, err
	}
	defer c.close()
	res := &renameFloodResult{Mode: "renameflood", Server: addr.String(), Count: *count, CommandKinds: map[string]int{}, Prints: []string{}}
	if err := c.getChallenge(*timeout); err != nil {
		return nil, err
	}
	refusal, err := c.connect(*timeout)
	if err != nil {
		return nil, err
	}
	if refusal != "" {
		res.Refused = refusal
		return res, nil
	}
	if ok, err := c.pump(*timeout, func() bool { return c.haveGamestate && c.snaps > 0 }); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("no gamestate and snapshot from %s within %v (dropped: %q)", addr, *timeout, c.dropReason)
	}
	if *enter {
		c.moves = true
		if ok, err := c.pump(*timeout, func() bool { return c.active }); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("not in the game on %s within %v of sending usercmds (dropped: %q)", addr, *timeout, c.dropReason)
		}
	}
	res.ServerID, res.Scramble, res.ClientNum, res.Entered = c.serverID, c.scramble, c.gs.ClientNum, c.active

	// From now on, count what the server says.
	seen := map[int]bool{}
	names := regexp.MustCompile(`(?:^|[^A-Za-z0-9])` + regexp.QuoteMeta(*prefix) + `([0-9]+)(?:[^0-9]|$)`)
	prints := map[string]bool{}
	c.onServerCommand = func(text string) {
		res.ServerCommands++
		args := cmdargs.Tokenize(text)
		res.CommandKinds[args.Argv(0)]++
		for _, m := range names.FindAllStringSubmatch(text, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= *count {
				seen[n] = true
			}
		}
		if args.Argv(0) == "print" {
			p := strings.TrimSpace(args.Argv(1))
			if strings.Contains(strings.ToLower(p), "flood") {
				res.FloodNotices++
			}
			if !prints[p] && len(prints) < 10 {
				prints[p] = true
				res.Prints = append(res.Prints, p)
			}
		}
	}
	gapsBefore := c.gaps

	// The flood: one message, every rename in it.
	first := int32(len(c.clientCmds))
	for i := 1; i <= *count; i++ {
		c.queue(`userinfo "\name\` + *prefix + strconv.Itoa(i) + `\rate\25000\snaps\20"`)
	}
	last := int32(len(c.clientCmds) - 1)
	res.FirstCommand, res.LastCommand = first, last
	packetsBefore := c.ch.Stats().PacketsOut
	n, err := c.send(max(c.clientAcked+1, c.resendFrom), last)
	if err != nil {
		return nil, err
	}
	res.MessageBytes, res.Packets = n, c.ch.Stats().PacketsOut-packetsBefore
	c.resendFrom = last + 1 // never again
	start := time.Now()

	if _, err := c.pump(*watch, nil); err != nil {
		return nil, err
	}
	res.WatchS = time.Since(start).Seconds()
	res.Acknowledged = c.clientAcked
	res.Dropped, res.DropReason = c.dropped, c.dropReason
	if c.dropped {
		res.DroppedAfterS = res.WatchS
	}
	res.Gaps = c.gaps - gapsBefore
	res.RenamesSeen = len(seen)
	res.Errors = c.errs
	c.disconnect()
	return res, nil
}

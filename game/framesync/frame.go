package framesync

import (
	"math/bits"
	"strconv"

	"tremor/bg"
	"tremor/game"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// FrameBuffer is how many frames the server keeps, for the frames it sends
// again until they are acknowledged and for the frames a client asks for
// when it misses some. It is also the furthest ahead of the frame being
// built that the Recorder holds a client's input: FrameBuffer/2 frames.
const FrameBuffer = 256

// EventKind says which engine→game call an Event replays.
type EventKind uint8

// The kinds of Event, one per call of game.Game that changes the
// simulation and that the engine makes between two frames.
const (
	// EventInit is Init(Value, Seed, Restart): a match starts (the
	// first frame of a map, or map_restart).
	EventInit EventKind = iota + 1
	// EventConnect is ClientConnect(Client, Text, IsBot), Text being the
	// userinfo reduced to the keys the game reads (GameUserinfo).
	EventConnect
	// EventBegin is ClientBegin(Client).
	EventBegin
	// EventUserinfo is ClientUserinfoChanged(Client, Text), Text reduced
	// as for EventConnect.
	EventUserinfo
	// EventCommand is ClientCommand(Client, args), args being Text
	// tokenized again by net/cmdargs.
	EventCommand
	// EventDisconnect is ClientDisconnect(Client).
	EventDisconnect
	// EventAddBot is AddBot(Text, Value): the console's addbot, Text
	// the name and Value the skill (1 to 5). The client slot the engine
	// gave the bot is in the frame's BotSlots.
	EventAddBot
	// EventConfig is SetConfig(Config).
	EventConfig
	// EventPing is SetPing(Client, Value): a client's ping in ms, 0 to
	// MaxPing. The Recorder records one only when the value the game
	// holds changes, at most once every PingEvery frames per client.
	EventPing

	numEventKinds // one past the last kind
)

// String names the kind as the documentation does.
func (k EventKind) String() string {
	switch k {
	case EventInit:
		return "init"
	case EventConnect:
		return "connect"
	case EventBegin:
		return "begin"
	case EventUserinfo:
		return "userinfo"
	case EventCommand:
		return "command"
	case EventDisconnect:
		return "disconnect"
	case EventAddBot:
		return "addbot"
	case EventConfig:
		return "config"
	case EventPing:
		return "ping"
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// Event is one engine→game call made between two frames, replayed by
// Apply before the frame's inputs. Which fields count depends on Kind
// (see the EventKind constants); the others are zero.
type Event struct {
	Kind    EventKind
	Client  int32       // the client of Connect, Begin, Userinfo, Command, Disconnect, Ping
	IsBot   bool        // Connect: the client is a bot
	Restart bool        // Init: map_restart
	Text    string      // Connect, Userinfo: userinfo; Command: the command; AddBot: the name
	Value   int32       // Init: the level time; AddBot: the skill; Ping: the ping in ms
	Seed    uint64      // Init: the seed of the game's random generator
	Config  game.Config // Config: the new settings
}

// Frame is one server frame's fixed inputs and what happened between it
// and the frame before. The server's Recorder makes it; every client runs
// it through Apply on its own copy of the game.
type Frame struct {
	// Number is the frame number, one more than the frame before's.
	Number int32
	// Time is the level time RunFrame runs to.
	Time int32
	// Events are the engine→game calls made since the previous frame,
	// in order, applied first.
	Events []Event
	// Present has bit n set when Inputs[n] is client n's input this
	// frame (humans and bots alike: every client in the game).
	Present uint64
	// Inputs are the clients' usercmds; a present one's ServerTime is
	// Time.
	Inputs [bg.MaxClients]bg.UserCmd
	// BotSlots are the engine's answers to BotAllocateClient during
	// this frame (its events, then its RunFrame), in order: -1 or a
	// client number.
	BotSlots []int32
	// HasHash says whether Hash is set: the game's StateHash after the
	// frame, sent every HashEvery frames.
	HasHash bool
	Hash    uint64
}

// Reset empties f for reuse, keeping the storage of its slices.
func (f *Frame) Reset() {
	clear(f.Events) // drop references to old texts
	f.Events = f.Events[:0]
	f.BotSlots = f.BotSlots[:0]
	f.Number, f.Time, f.Present = 0, 0, 0
	f.HasHash, f.Hash = false, 0
	for n := range f.Inputs {
		f.Inputs[n] = bg.UserCmd{}
	}
}

// CopyFrom makes f a copy of src, reusing f's slices.
func (f *Frame) CopyFrom(src *Frame) {
	if f == src {
		return
	}
	clear(f.Events)
	f.Events = append(f.Events[:0], src.Events...)
	f.BotSlots = append(f.BotSlots[:0], src.BotSlots...)
	f.Number, f.Time, f.Present = src.Number, src.Time, src.Present
	f.HasHash, f.Hash = src.HasHash, src.Hash
	f.Inputs = src.Inputs
}

// Apply runs frame f on g: its events in order, then ClientThink for each
// present input in client order, then RunFrame(f.Time). The server's
// Recorder and the client's Sim both run frames through it, so the
// replay is the same code as the original. An engine whose game calls
// BotAllocateClient must answer with f.BotSlots in order (the Sim does).
func Apply(g game.Game, f *Frame) {
	for i := range f.Events {
		ApplyEvent(g, &f.Events[i])
	}
	applyInputs(g, f)
	g.RunFrame(f.Time)
}

// applyInputs runs ClientThink for each present input of f, in client
// order.
func applyInputs(g game.Game, f *Frame) {
	for p := f.Present; p != 0; p &= p - 1 {
		n := bits.TrailingZeros64(p)
		g.ClientThink(n, &f.Inputs[n])
	}
}

// ApplyEvent makes on g the call e records.
func ApplyEvent(g game.Game, e *Event) {
	n := int(e.Client)
	switch e.Kind {
	case EventInit:
		g.Init(e.Value, e.Seed, e.Restart)
	case EventConnect:
		g.ClientConnect(n, e.Text, e.IsBot)
	case EventBegin:
		g.ClientBegin(n)
	case EventUserinfo:
		g.ClientUserinfoChanged(n, e.Text)
	case EventCommand:
		applyCommand(g, n, e.Text)
	case EventDisconnect:
		g.ClientDisconnect(n)
	case EventAddBot:
		_, _ = g.AddBot(e.Text, int(e.Value)) // a refusal happens on every side alike
	case EventConfig:
		g.SetConfig(e.Config)
	case EventPing:
		g.SetPing(n, int(e.Value))
	}
}

// applyCommand tokenizes text as the server's engine did and passes it to
// the game (a function of its own so that only frames with commands pay
// for the arguments).
func applyCommand(g game.Game, n int, text string) {
	args := cmdargs.Tokenize(text)
	g.ClientCommand(n, &args)
}

// invalidUserinfo stands for a userinfo the game refuses: recorded instead
// of the refused text, which may hold anything, and refused again on
// every client.
const invalidUserinfo = "invalid"

// gameUserinfoKeys are the userinfo keys the game reads (ClientConnect,
// ClientUserinfoChanged).
var gameUserinfoKeys = [...]string{"name", "team", "skill"}

// GameUserinfo returns userinfo reduced to the keys the game reads (name,
// team and skill, with non-empty values, in that order), or a fixed
// invalid text for an invalid userinfo. The Recorder gives the game, and
// records, this reduction only: every client gets each player's
// userinfo, and the engine's keys (ip, password...) must stay on the
// server.
func GameUserinfo(userinfo string) string {
	if infostr.Validate(userinfo) != nil {
		return invalidUserinfo
	}
	out := ""
	for _, k := range gameUserinfoKeys {
		if v := infostr.ValueForKey(userinfo, k); v != "" {
			out += `\` + k + `\` + v
		}
	}
	return out
}

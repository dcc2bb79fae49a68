package headless

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"

	"tremor/client"
	"tremor/common/safetext"
)

// Event names of the JSON lines log. Every line has "t" (seconds since
// the run started), "event" and "client" (its index).
const (
	EventChatSent      = "chat_sent"      // text
	EventChatRefused   = "chat_refused"   // text, reason: AddReliableCommand refused it
	EventServerCommand = "server_command" // sequence, text
	EventSnapshot      = "snapshot"       // messageNum, serverTime, deltaNum, bytes, flags, valid, entities_changed
	EventState         = "state"          // from, to
	EventDisconnect    = "disconnect"     // reason, by ("user", "server" or "error")
)

// logger writes JSON lines; safe for the clients' goroutines. Text from
// the server (commands, reasons) and chat is logged with its control
// characters written as escapes (safetext.Line): JSON escapes C0
// controls, but not C1 ones such as CSI (U+009B), nor format characters,
// and a log is read on terminals.
type logger struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newLogger(w io.Writer) *logger {
	if w == nil {
		return &logger{}
	}
	return &logger{w: bufio.NewWriter(w)}
}

func (l *logger) write(v any) {
	if l.w == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.mu.Lock()
	l.w.Write(b)
	l.w.WriteByte('\n')
	l.mu.Unlock()
}

func (l *logger) flush() {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	l.w.Flush()
	l.mu.Unlock()
}

type head struct {
	T      float64 `json:"t"`
	Event  string  `json:"event"`
	Client int     `json:"client"`
}

func mkHead(now time.Duration, ev string, i int) head {
	return head{T: float64(now.Microseconds()) / 1e6, Event: ev, Client: i}
}

func (l *logger) chatSent(now time.Duration, i int, text string) {
	l.write(struct {
		head
		Text string `json:"text"`
	}{mkHead(now, EventChatSent, i), safetext.Line(text)})
}

func (l *logger) chatRefused(now time.Duration, i int, text, reason string) {
	l.write(struct {
		head
		Text   string `json:"text"`
		Reason string `json:"reason"`
	}{mkHead(now, EventChatRefused, i), safetext.Line(text), safetext.Line(reason)})
}

func (l *logger) serverCommand(now time.Duration, i int, seq int32, text string) {
	if l.w == nil {
		return
	}
	l.write(struct {
		head
		Sequence int32  `json:"sequence"`
		Text     string `json:"text"`
	}{mkHead(now, EventServerCommand, i), seq, safetext.Line(text)})
}

func (l *logger) snapshot(now time.Duration, i int, s client.SnapshotInfo) {
	if l.w == nil {
		return
	}
	l.write(struct {
		head
		MessageNum int32 `json:"messageNum"`
		ServerTime int32 `json:"serverTime"`
		DeltaNum   int32 `json:"deltaNum"`
		Bytes      int   `json:"bytes"`
		Flags      int32 `json:"flags"`
		Valid      bool  `json:"valid"`
		Changed    int   `json:"entities_changed"`
	}{mkHead(now, EventSnapshot, i), s.MessageNum, s.ServerTime, s.DeltaNum, s.Bytes, s.Flags, s.Valid, s.EntitiesChanged})
}

func (l *logger) state(now time.Duration, i int, from, to client.State) {
	l.write(struct {
		head
		From string `json:"from"`
		To   string `json:"to"`
	}{mkHead(now, EventState, i), from.String(), to.String()})
}

func (l *logger) disconnect(now time.Duration, i int, reason, by string) {
	l.write(struct {
		head
		Reason string `json:"reason"`
		By     string `json:"by"`
	}{mkHead(now, EventDisconnect, i), safetext.Line(reason), by})
}

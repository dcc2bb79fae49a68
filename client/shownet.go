package client

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// This file holds Quake III's console diagnostics of the client engine,
// showpackets and cl_shownet, printed through Config.Logf. Every call
// site tests the setting first, so that when they are off nothing is
// formatted and nothing allocated.

// svcNames are the server operations under Quake III's names.
var svcNames = [...]string{
	proto.SvcBad:           "svc_bad",
	proto.SvcNop:           "svc_nop",
	proto.SvcGamestate:     "svc_gamestate",
	proto.SvcConfigstring:  "svc_configstring",
	proto.SvcBaseline:      "svc_baseline",
	proto.SvcServerCommand: "svc_serverCommand",
	proto.SvcSnapshot:      "svc_snapshot",
	proto.SvcEOF:           "svc_EOF",
	proto.SvcDownload:      "svc_download",
	proto.SvcStateHash:     "svc_stateHash",
}

// svcName returns the name of server operation op.
func svcName(op uint8) string {
	if int(op) < len(svcNames) {
		return svcNames[op]
	}
	return "svc_" + strconv.Itoa(int(op)) + "?"
}

// shownet is the diagnostics' state.
type shownet struct {
	packetFn func(netchan.PacketEvent) // c.tracePacket, made once so that setting it does not allocate
	fieldFn  func(msg.FieldEvent)      // c.traceField, likewise
	// events are the delta fields read for the snapshot being parsed
	// (cl_shownet 3 and 4).
	events []msg.FieldEvent
	line   []byte
	opPos  int // byte position of the server operation being parsed
}

func (c *Client) initShownet() {
	c.shownet.packetFn = c.tracePacket
	c.shownet.fieldFn = c.traceField
}

// applyShownet gives the channel its packet trace when showpackets is on.
func (c *Client) applyShownet() {
	if c.conn.ch == nil {
		return
	}
	if c.cfg.ShowPackets {
		c.conn.ch.Trace = c.shownet.packetFn
	} else {
		c.conn.ch.Trace = nil
	}
}

// logf prints one diagnostic line through Config.Logf, or to standard
// error. Its arguments may hold the server's text (a map name, a server
// command with cl_shownet): the line goes out with its control
// characters written as escapes (safetext.Line), whatever the sink.
func (c *Client) logf(format string, args ...any) {
	line := safetext.Line(fmt.Sprintf(format, args...))
	if c.cfg.Logf != nil {
		c.cfg.Logf("%s", line)
		return
	}
	fmt.Fprintln(os.Stderr, line)
}

// tracePacket prints one netchan packet (showpackets), in Quake III's
// shape: direction, size, sequence, then the fragment's start and length,
// the sequences skipped before it, and what became of an incoming packet
// that delivered no message.
func (c *Client) tracePacket(ev netchan.PacketEvent) {
	b := c.shownet.line[:0]
	b = append(b, ev.Dir.String()...)
	b = fmt.Appendf(b, " %4d : s=%d", ev.Size, ev.Sequence)
	if ev.Fragment {
		b = fmt.Appendf(b, " fragment=%d,%d", ev.FragmentStart, ev.FragmentLength)
	}
	if ev.Dropped > 0 {
		b = fmt.Appendf(b, " dropped=%d", ev.Dropped)
	}
	if ev.Dir == netchan.Incoming && ev.Result != netchan.ResultDelivered {
		b = append(b, ' ')
		b = append(b, ev.Result.String()...)
	}
	c.shownet.line = b
	c.logf("%s", b)
}

// showConnectionless prints a connectionless packet (showpackets).
func (c *Client) showConnectionless(dir netchan.Direction, size int, text string) {
	c.logf("%s %4d : connectionless %s", dir, size, oob.Command(text))
}

// shownetObserver is the client as the proto.Observer of its server
// messages at cl_shownet 2 and up: a line per operation (the position of
// its code, its name; a server command's sequence and text), and at 3 and
// up the field trace of a snapshot's player state and entities, which
// showSnapshot prints.
type shownetObserver Client

// Observe prints an operation or starts a snapshot's field trace.
func (o *shownetObserver) Observe(e proto.Event) {
	c := (*Client)(o)
	switch e.Part {
	case proto.PartOp:
		c.shownet.opPos = (e.Start + 7) >> 3
		if e.Op != proto.SvcServerCommand {
			c.logf("%4d: %s", c.shownet.opPos, svcName(e.Op))
		}
	case proto.PartServerCommand:
		c.logf("%4d: %s %d %q", c.shownet.opPos, svcName(proto.SvcServerCommand), e.Seq, e.Text)
	case proto.PartPlayerState:
		if e.Begin && c.cfg.ShowNet >= 3 {
			c.shownet.events = c.shownet.events[:0]
			c.r.SetFieldTrace(c.shownet.fieldFn)
		}
	}
}

// traceField collects the delta fields of a snapshot (cl_shownet 3, 4).
func (c *Client) traceField(ev msg.FieldEvent) {
	if len(c.shownet.events) < 1<<16 {
		c.shownet.events = append(c.shownet.events, ev)
	}
}

// showSnapshots reports whether cl_shownet prints snapshot details.
func (c *Client) showSnapshots() bool { return c.cfg.ShowNet >= 3 || c.cfg.ShowNet < 0 }

// showMessageEnd prints the end of a server message: its size and how
// much of it was read (cl_shownet 1), or the error that stopped the
// parse (any level).
func (c *Client) showMessageEnd(seq uint32, size int) {
	r := &c.r
	switch {
	case c.cfg.ShowNet == 1 && r.Err() != nil:
		c.logf("message %d: %d bytes, %d read: %v", seq, size, r.BytePos(), r.Err())
	case c.cfg.ShowNet == 1:
		c.logf("message %d: %d bytes, %d read", seq, size, r.BytePos())
	case c.cfg.ShowNet >= 2 && r.Err() != nil:
		c.logf("%4d: error: %v", r.BytePos(), r.Err())
	}
}

// showSnapshot prints a parsed snapshot: at cl_shownet -1 its entity
// counts, at 3 the header, the player-state fields and the entities the
// delta changed (field names), at 4 with the new values. from is the
// delta's base list, ents the result.
func (c *Client) showSnapshot(info *SnapshotInfo, ping int32, from, ents []bg.EntityState) {
	level := c.cfg.ShowNet
	delta := "full"
	if info.DeltaNum >= 0 {
		delta = "delta from " + strconv.Itoa(int(info.DeltaNum))
	}
	if level < 0 {
		c.logf("snapshot %d (%s): %d entities, %d changed", info.MessageNum, delta, len(ents), info.EntitiesChanged)
		return
	}
	if !info.Valid {
		c.logf("      snapshot %d: serverTime %d %s: invalid, its base is gone", info.MessageNum, info.ServerTime, delta)
		return
	}
	c.logf("      snapshot %d: serverTime %d %s flags %#x ping %d", info.MessageNum, info.ServerTime, delta, info.Flags, ping)

	ev := c.shownet.events
	next := func() []msg.FieldEvent { // the next delta's events, start included
		if len(ev) == 0 {
			return nil
		}
		n := 1
		for n < len(ev) && ev[n].Field != "" {
			n++
		}
		g := ev[:n]
		ev = ev[n:]
		return g
	}
	if ps := next(); len(ps) > 0 && ps[0].Table == bg.PlayerStateTable.Name() {
		c.logf("      playerstate:%s", c.fieldList(ps[1:], level >= 4, "unchanged"))
	}
	var nDelta, nNew, nRemoved, nSame int
	mismatch := false
	i, j := 0, 0
	for i < len(from) || j < len(ents) {
		var num int32
		kind := ""
		switch {
		case i < len(from) && j < len(ents) && from[i].Number == ents[j].Number:
			num = ents[j].Number
			if from[i] != ents[j] {
				kind = "delta"
				nDelta++
			} else {
				nSame++
			}
			i++
			j++
		case j < len(ents) && (i == len(from) || ents[j].Number < from[i].Number):
			num, kind = ents[j].Number, "baseline"
			nNew++
			j++
		default:
			num, kind = from[i].Number, "remove"
			nRemoved++
			i++
		}
		if kind == "" {
			continue
		}
		g := next()
		if len(g) == 0 || g[0].Removed != (kind == "remove") {
			mismatch = true
			c.logf("      #%-4d %s", num, kind)
			continue
		}
		if kind == "remove" {
			c.logf("      #%-4d remove", num)
			continue
		}
		c.logf("      #%-4d %s:%s", num, kind, c.fieldList(g[1:], level >= 4, "no change"))
	}
	for g := next(); len(g) > 0; g = next() {
		mismatch = true
		c.logf("      #?    %s", c.fieldList(g[1:], level >= 4, "no change"))
	}
	if mismatch {
		c.logf("      (the deltas read do not match the entity lists)")
	}
	c.logf("      entities: %d (%d delta, %d baseline, %d removed, %d unchanged)", len(ents), nDelta, nNew, nRemoved, nSame)
}

// fieldList formats changed fields as " Name Name[3]" or, with values,
// " Name=12 Name[3]=-4 X=1.5"; empty says so when there are none.
func (c *Client) fieldList(ev []msg.FieldEvent, values bool, empty string) string {
	if len(ev) == 0 {
		return " " + empty
	}
	b := make([]byte, 0, 16*len(ev))
	for _, e := range ev {
		b = append(b, ' ')
		b = append(b, e.Field...)
		if e.Index >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.Index), 10)
			b = append(b, ']')
		}
		if !values {
			continue
		}
		b = append(b, '=')
		if e.Bits == 0 {
			b = strconv.AppendFloat(b, float64(math.Float32frombits(e.Value)), 'g', -1, 32)
		} else {
			b = strconv.AppendInt(b, int64(int32(e.Value)), 10)
		}
	}
	return string(b)
}

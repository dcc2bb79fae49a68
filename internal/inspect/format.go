package inspect

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Summary returns the one-line summary of m: time, direction, addresses,
// size, kind and the netchan header, then the operations it carried.
func (m *Message) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%9.3f %s %s -> %s %4dB ", m.Time.Seconds(), m.Dir, m.From, m.To, m.Size)
	switch m.Kind {
	case KindConnectionless:
		b.WriteString("oob")
		if m.OOB != nil {
			fmt.Fprintf(&b, " %s", quoteLine(m.OOB.Text, 80))
		}
	default:
		fmt.Fprintf(&b, "%s seq %d", m.Kind, m.Sequence)
		if m.Qport != 0 || m.Dir == ClientToServer {
			fmt.Fprintf(&b, " qport %d", m.Qport)
		}
		if m.Fragment {
			fmt.Fprintf(&b, " frag %d+%d", m.FragmentStart, m.FragmentLength)
		}
		if m.Dropped > 0 {
			fmt.Fprintf(&b, " (%d lost before)", m.Dropped)
		}
		if m.Kind == KindMessage {
			fmt.Fprintf(&b, " msg %dB %d bits", m.MessageLen, m.Bits)
			if m.Scrambled {
				b.WriteString(" scrambled")
			}
			b.WriteString(" |")
			for _, o := range m.Ops {
				b.WriteByte(' ')
				b.WriteString(o.short())
			}
		}
	}
	if m.Err != "" {
		fmt.Fprintf(&b, " ERROR: %s", m.Err)
	}
	return b.String()
}

// short is an operation's name with its key value, for summaries.
func (o *Op) short() string {
	switch {
	case o.Command != nil:
		return fmt.Sprintf("%s#%d", o.Name, o.Command.Sequence)
	case o.Snapshot != nil:
		s := o.Snapshot
		if s.Base < 0 {
			return fmt.Sprintf("snapshot(full t=%d)", s.ServerTime)
		}
		return fmt.Sprintf("snapshot(base %d t=%d)", s.Base, s.ServerTime)
	case o.Move != nil:
		return fmt.Sprintf("%s(%d)", o.Name, len(o.Move.Cmds))
	case o.Frames != nil:
		f := o.Frames.Frames
		return fmt.Sprintf("frames(%d-%d lead %d)", f[0].Number, f[len(f)-1].Number, o.Frames.Lead)
	case o.WholeState != nil:
		return fmt.Sprintf("wholeState(frame %d)", o.WholeState.Frame)
	case o.FrameRequest != nil:
		if o.FrameRequest.Whole {
			return fmt.Sprintf("frameRequest(whole %d)", o.FrameRequest.From)
		}
		return fmt.Sprintf("frameRequest(from %d)", o.FrameRequest.From)
	case o.Header != nil:
		return fmt.Sprintf("ack %d/%d", o.Header.MessageAcknowledge, o.Header.ReliableAcknowledge)
	case o.Name == OpReliableAck && len(o.Fields) > 0:
		return "ack " + o.Fields[0].Value
	}
	return o.Name
}

// WriteText writes m as its summary line followed, with detail set, by
// an indented breakdown: every operation and field with its bits.
func (m *Message) WriteText(w io.Writer, detail bool) error {
	var b strings.Builder
	b.WriteString(m.Summary())
	b.WriteByte('\n')
	if detail {
		if m.OOB != nil {
			for _, f := range m.OOB.Fields {
				fmt.Fprintf(&b, "    %-24s %s\n", f.Name, quoteLine(f.Value, 100))
			}
		}
		if m.HeaderBits > 0 && m.Kind == KindMessage {
			fmt.Fprintf(&b, "%-60s %6d bits\n", "    netchan header (raw bytes)", m.HeaderBits)
		}
		for i := range m.Ops {
			m.Ops[i].write(&b, 1)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (o *Op) write(b *strings.Builder, depth int) {
	ind := strings.Repeat("  ", depth+1)
	head := o.Name
	if o.Entity != nil {
		head = fmt.Sprintf("%s %d %s", o.Name, o.Entity.Number, o.Entity.Change)
	}
	var vals []string
	for _, f := range o.Fields {
		if f.Bits == 0 {
			vals = append(vals, f.Name+"="+quoteLine(f.Value, 60))
		}
	}
	if o.Snapshot != nil {
		s := o.Snapshot
		vals = append(vals, fmt.Sprintf("entities=%d (changed %d, added %d, removed %d, unchanged %d)",
			len(s.Entities), s.Changed, s.Added, s.Removed, s.Unchanged))
	}
	line := ind + head
	if len(vals) > 0 {
		line += " " + strings.Join(vals, " ")
	}
	if o.inParent {
		b.WriteString(line + "\n")
	} else {
		fmt.Fprintf(b, "%-60s %6d bits\n", line, o.Bits)
	}
	for _, f := range o.Fields {
		if f.Bits > 0 {
			fmt.Fprintf(b, "%-60s %6d bits\n", ind+"  "+f.Name+" = "+quoteLine(f.Value, 40), f.Bits)
		}
	}
	for i := range o.Sub {
		o.Sub[i].write(b, depth+1)
	}
}

// quoteLine quotes s if it needs it and cuts it to at most n bytes.
func quoteLine(s string, n int) string {
	cut := false
	if len(s) > n {
		s, cut = s[:n], true
	}
	q := s
	if strings.ContainsAny(s, "\n\t\"") || s == "" {
		q = strconv.Quote(s)
	}
	if cut {
		q += "…"
	}
	return q
}

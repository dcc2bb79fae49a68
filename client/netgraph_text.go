package client

import "fmt"

// The net graph's text: NetGraphLines is the most lines it shows (four,
// one more on the acks carrier, two more in frame sync), NetGraphColumns
// the characters its box holds on a line.
const (
	NetGraphLines   = 7
	NetGraphColumns = 50
)

// Text writes the net graph's lines of text for g into lines, "" for a
// line not shown:
//
//	in and out: bytes and packets a second
//	ping, jitter, loss
//	snapshots a second (full, rate-delayed) and reliable commands
//	waiting; in frame sync, the frames messages a second instead
//	on the acks carrier: its round trip and the loss each way
//	in frame sync: frames ahead of the last confirmed one, that frame,
//	the input lead and the hashes checked; rollbacks a second, the
//	frames the last and the largest ran again, the time stalled in the
//	last second
//
// It allocates the lines' text; call it when g changes.
func (g NetGraph) Text(lines *[NetGraphLines]string) {
	ping, jitter := "-", "-"
	if g.Ping >= 0 {
		ping = fmt.Sprintf("%.0f ms", g.Ping)
	}
	if g.Jitter >= 0 {
		jitter = fmt.Sprintf("%.1f ms", g.Jitter)
	}
	*lines = [NetGraphLines]string{}
	lines[0] = fmt.Sprintf("in  %6d B/s %3d pkt/s", g.BytesIn, g.PacketsIn)
	lines[1] = fmt.Sprintf("out %6d B/s %3d pkt/s", g.BytesOut, g.PacketsOut)
	lines[2] = fmt.Sprintf("ping %s  jitter %s  loss %.1f%%", ping, jitter, g.Loss)
	if g.FrameSync {
		lines[3] = fmt.Sprintf("frames %d msg/s  rel %d", g.Snapshots, g.ReliablePending)
	} else {
		lines[3] = fmt.Sprintf("snaps %d/s  full %.0f%%  delayed %d  rel %d",
			g.Snapshots, 100*g.FullShare(), g.RateDelayed, g.ReliablePending)
	}
	if g.Acks {
		lines[4] = fmt.Sprintf("acks rtt %.0f ms  loss up %.1f%% down %.1f%%", g.AckRTT, g.UpstreamLoss, g.DownstreamLoss)
	}
	if g.FrameSync {
		hash := fmt.Sprintf("hash %d ok", g.HashChecks)
		if g.Mismatches > 0 {
			hash = fmt.Sprintf("hash %d, %d BAD", g.HashChecks, g.Mismatches)
		}
		lines[5] = fmt.Sprintf("ahead %d  confirmed %d  lead %d  %s", g.Ahead, g.Confirmed, g.Lead, hash)
		lines[6] = fmt.Sprintf("rollbacks %d/s  resim %d/%d  stalled %d ms/s", g.Rollbacks, g.LastResimulated, g.MaxResimulated, g.StalledMsec)
	}
}

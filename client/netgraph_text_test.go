package client

import "testing"

func TestNetGraphText(t *testing.T) {
	base := NetGraph{BytesIn: 1008, PacketsIn: 21, BytesOut: 360, PacketsOut: 20, Ping: 185, Jitter: 11.4, Snapshots: 21, ReliablePending: 1}
	acks := base
	acks.Acks, acks.AckRTT, acks.UpstreamLoss, acks.DownstreamLoss = true, 120, 1.5, 4
	fs := base
	fs.FrameSync, fs.Ahead, fs.Confirmed, fs.Lead = true, 6, 598, 2
	fs.Rollbacks, fs.LastResimulated, fs.MaxResimulated, fs.StalledMsec = 14, 3, 8, 230
	fs.HashChecks = 106
	bad := fs
	bad.Mismatches = 2
	noPing := base
	noPing.Ping, noPing.Jitter = -1, -1
	tests := []struct {
		name string
		g    NetGraph
		want [NetGraphLines]string
	}{
		{"snapshots", base, [NetGraphLines]string{
			"in    1008 B/s  21 pkt/s", "out    360 B/s  20 pkt/s", "ping 185 ms  jitter 11.4 ms  loss 0.0%",
			"snaps 21/s  full 0%  delayed 0  rel 1"}},
		{"no ping yet", noPing, [NetGraphLines]string{
			"in    1008 B/s  21 pkt/s", "out    360 B/s  20 pkt/s", "ping -  jitter -  loss 0.0%",
			"snaps 21/s  full 0%  delayed 0  rel 1"}},
		{"acks carrier", acks, [NetGraphLines]string{
			"in    1008 B/s  21 pkt/s", "out    360 B/s  20 pkt/s", "ping 185 ms  jitter 11.4 ms  loss 0.0%",
			"snaps 21/s  full 0%  delayed 0  rel 1", "acks rtt 120 ms  loss up 1.5% down 4.0%"}},
		{"frame sync", fs, [NetGraphLines]string{
			"in    1008 B/s  21 pkt/s", "out    360 B/s  20 pkt/s", "ping 185 ms  jitter 11.4 ms  loss 0.0%",
			"frames 21 msg/s  rel 1", "",
			"ahead 6  confirmed 598  lead 2  hash 106 ok", "rollbacks 14/s  resim 3/8  stalled 230 ms/s"}},
		{"frame sync, hashes differ", bad, [NetGraphLines]string{
			"in    1008 B/s  21 pkt/s", "out    360 B/s  20 pkt/s", "ping 185 ms  jitter 11.4 ms  loss 0.0%",
			"frames 21 msg/s  rel 1", "",
			"ahead 6  confirmed 598  lead 2  hash 106, 2 BAD", "rollbacks 14/s  resim 3/8  stalled 230 ms/s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := [NetGraphLines]string{"stale", "stale", "stale", "stale", "stale", "stale", "stale"}
			tc.g.Text(&lines)
			for i := range lines {
				if lines[i] != tc.want[i] {
					t.Errorf("line %d: %q, want %q", i, lines[i], tc.want[i])
				}
			}
			for i, l := range lines {
				if len(l) > NetGraphColumns {
					t.Errorf("line %d is %d columns, more than the box's %d: %q", i, len(l), NetGraphColumns, l)
				}
			}
		})
	}
}

package client

import "time"

// Net graph window: the figures of NetGraph cover the last
// NetGraphBuckets complete buckets of NetGraphBucketMsec of client time.
const (
	NetGraphBucketMsec = 100
	NetGraphBuckets    = 10 // one second
)

// NetGraph is what a net graph (cg_netgraph) shows: the client's traffic
// over the last second of client time, as whole buckets of 100 ms (so the
// figures move every 100 ms and lag by at most that much).
//
// Bytes and packets are UDP payloads, netchan and connectionless headers
// included, no IP or UDP headers; Out counts what the client wrote before
// its own impairments (cl_packetloss...) decided its fate.
type NetGraph struct {
	BytesIn, BytesOut     int // bytes in the last second
	PacketsIn, PacketsOut int // packets in the last second

	// Messages is how many server messages the netchan delivered, and
	// Lost how many sequence numbers it skipped before them: messages
	// lost on the way (one lost fragment loses its message).
	Messages, Lost int
	// Loss is Lost as a percentage of Messages + Lost; 0 with no traffic.
	Loss float64

	// Snapshots is how many valid snapshots were parsed (the snapshot
	// rate); Full of them were not delta-coded, RateDelayed were flagged
	// as held back by the server's rate control.
	Snapshots, Full, RateDelayed int

	// Ping is the mean ping of the newest PingWindow snapshots that
	// measured one, in ms (Client.Ping: the time from the usercmd packet
	// a snapshot acknowledges to the snapshot), so that it follows a
	// change of the link within a fraction of the second; -1 when no
	// snapshot in the last second measured one.
	Ping float64
	// Jitter is the mean absolute difference, in ms, between the time
	// two consecutive snapshots arrived apart and the server time that
	// separates them: |(arrival_i - arrival_i-1) - (serverTime_i -
	// serverTime_i-1)|. A snapshot lost or held back by the rate between
	// them does not count as jitter, since the server times say how far
	// apart they were sent. Arrival is when the socket reader got the
	// packet (its last fragment), not the frame that handled it, so the
	// frame rate does not add to it. -1 with fewer than two snapshots.
	Jitter float64

	// ReliablePending is how many reliable client commands the server has
	// not acknowledged yet, now.
	ReliablePending int

	// Acks: the connection uses the acks carrier (protocol.md 6.7), and
	// AckRTT (ms), UpstreamLoss and DownstreamLoss (percent) are what its
	// packet acks measure: the round trip, the client's packets the
	// server did not receive, and the server's that did not arrive.
	Acks                         bool
	AckRTT                       float64
	UpstreamLoss, DownstreamLoss float64

	// FrameSync: the gamestate is in frame sync (docs/framesync.md) and
	// the fields below are what its rollback machine shows
	// (Client.FrameSyncStats has every counter). Snapshots then counts
	// the frames messages.
	FrameSync bool
	// Ahead is how many frames the client's game ran past Confirmed,
	// the last confirmed frame; Lead is the server's last input lead, in
	// frames.
	Ahead, Confirmed int32
	Lead             int
	// Rollbacks is how many rollbacks the last second had;
	// LastResimulated and MaxResimulated how many frames the last one and
	// the largest since the gamestate ran again.
	Rollbacks, LastResimulated, MaxResimulated int
	// Stalled: the game is stalled now, cl_maxPredictionFrames ahead of
	// the last confirmed frame; StalledMsec is how long it stalled in
	// the last second, Stalls how many client frames stalled since the
	// gamestate.
	Stalled     bool
	StalledMsec int
	Stalls      int
	// HashChecks counts the confirmed frames whose state hash was
	// compared with the server's, Mismatches those that differed.
	HashChecks, Mismatches int
}

// FullShare returns the share of Snapshots that were full, 0 to 1.
func (g NetGraph) FullShare() float64 {
	if g.Snapshots == 0 {
		return 0
	}
	return float64(g.Full) / float64(g.Snapshots)
}

// netBucket is what happened in one bucket of client time.
type netBucket struct {
	bytesIn, bytesOut     int
	packetsIn, packetsOut int
	messages, lost        int
	snapshots, full       int
	rateDelayed           int
	pings                 int
	jitterSum             time.Duration
	jitters               int
	rollbacks             int // frame sync
	stalledMsec           int
}

// netGraph accumulates NetGraph over a ring of buckets; it never
// allocates. Times are client realtime in ms, except arrival times, which
// are the reader's clock.
type netGraph struct {
	b       [NetGraphBuckets + 1]netBucket // the complete ones and the current one
	cur     int64                          // number of the current bucket: now / NetGraphBucketMsec
	started bool

	// The previous snapshot, for jitter.
	haveLast       bool
	lastArrival    time.Duration
	lastServerTime int32

	pings pingMeter // the newest snapshots' pings
}

// bucket returns the bucket of time now, moving the window forward.
func (g *netGraph) bucket(now int32) *netBucket {
	n := int64(now) / NetGraphBucketMsec
	if !g.started {
		g.started, g.cur = true, n
	}
	if n > g.cur {
		for k := int64(0); k < min(n-g.cur, int64(len(g.b))); k++ {
			g.b[(g.cur+1+k)%int64(len(g.b))] = netBucket{}
		}
		g.cur = n
	}
	// A time before the current bucket (the clock never runs backwards,
	// but be safe) counts in the current one.
	return &g.b[g.cur%int64(len(g.b))]
}

func (g *netGraph) packetIn(now int32, size int) {
	b := g.bucket(now)
	b.packetsIn++
	b.bytesIn += size
}

func (g *netGraph) packetOut(now int32, size int) {
	b := g.bucket(now)
	b.packetsOut++
	b.bytesOut += size
}

// message counts a delivered server message and the sequences skipped
// before it.
func (g *netGraph) message(now int32, lost uint32) {
	b := g.bucket(now)
	b.messages++
	b.lost += int(min(lost, 1<<20))
}

// snapshot counts a valid snapshot: arrival is when its packet was read,
// ping is -1 if it measured none. It returns the snapshot's jitter
// sample, if it made one.
func (g *netGraph) snapshot(now int32, arrival time.Duration, serverTime int32, full, rateDelayed bool, ping int32) (jitter time.Duration, ok bool) {
	b := g.bucket(now)
	b.snapshots++
	if full {
		b.full++
	}
	if rateDelayed {
		b.rateDelayed++
	}
	if ping >= 0 {
		b.pings++
		g.pings.add(ping)
	}
	if g.haveLast && serverTime > g.lastServerTime {
		d := arrival - g.lastArrival - time.Duration(serverTime-g.lastServerTime)*time.Millisecond
		if d < 0 {
			d = -d
		}
		b.jitterSum += d
		b.jitters++
		jitter, ok = d, true
	}
	if !g.haveLast || serverTime > g.lastServerTime {
		g.haveLast, g.lastArrival, g.lastServerTime = true, arrival, serverTime
	}
	return jitter, ok
}

// frameSync counts a client frame in frame sync: the rollbacks it made
// and, when it stalled, its msec.
func (g *netGraph) frameSync(now int32, rollbacks int, stalled bool, msec int32) {
	b := g.bucket(now)
	b.rollbacks += rollbacks
	if stalled {
		b.stalledMsec += int(max(msec, 0))
	}
}

// resetJitter forgets the previous snapshot (a new gamestate: server time
// may start again).
func (g *netGraph) resetJitter() { g.haveLast = false }

// stats sums the complete buckets before time now.
func (g *netGraph) stats(now int32) NetGraph {
	var out NetGraph
	out.Ping, out.Jitter = -1, -1
	if !g.started {
		return out
	}
	g.bucket(now)
	var s netBucket
	for k := int64(1); k <= NetGraphBuckets; k++ {
		b := &g.b[(g.cur-k+int64(len(g.b)))%int64(len(g.b))]
		s.bytesIn += b.bytesIn
		s.bytesOut += b.bytesOut
		s.packetsIn += b.packetsIn
		s.packetsOut += b.packetsOut
		s.messages += b.messages
		s.lost += b.lost
		s.snapshots += b.snapshots
		s.full += b.full
		s.rateDelayed += b.rateDelayed
		s.pings += b.pings
		s.jitterSum += b.jitterSum
		s.jitters += b.jitters
		s.rollbacks += b.rollbacks
		s.stalledMsec += b.stalledMsec
	}
	out.BytesIn, out.BytesOut = s.bytesIn, s.bytesOut
	out.PacketsIn, out.PacketsOut = s.packetsIn, s.packetsOut
	out.Messages, out.Lost = s.messages, s.lost
	if s.messages+s.lost > 0 {
		out.Loss = 100 * float64(s.lost) / float64(s.messages+s.lost)
	}
	out.Snapshots, out.Full, out.RateDelayed = s.snapshots, s.full, s.rateDelayed
	if s.pings > 0 {
		out.Ping = g.pings.ping().Mean
	}
	if s.jitters > 0 {
		out.Jitter = float64(s.jitterSum) / float64(s.jitters) / float64(time.Millisecond)
	}
	out.Rollbacks, out.StalledMsec = s.rollbacks, s.stalledMsec
	return out
}

// NetGraph returns the net graph figures of the last second, as of the
// last Frame. It does not allocate; call it every frame if need be.
func (c *Client) NetGraph() NetGraph {
	g := c.graph.stats(c.realtime)
	g.ReliablePending = c.ReliablePending()
	if a := c.Acks(); a.On {
		g.Acks, g.AckRTT = true, a.RTT
		g.UpstreamLoss, g.DownstreamLoss = 100*a.UpstreamLoss, 100*a.DownstreamLoss
	}
	if c.FrameSync() {
		st, _ := c.FrameSyncStats()
		g.FrameSync = true
		g.Ahead, g.Confirmed, g.Lead = st.Ahead, st.Confirmed, st.Lead
		g.LastResimulated, g.MaxResimulated = st.LastResimulated, st.MaxResimulated
		g.Stalled, g.Stalls = st.Stalled, st.Stalls
		g.HashChecks, g.Mismatches = st.HashChecks, st.Mismatches
	} else {
		g.Rollbacks, g.StalledMsec = 0, 0 // of a frame-sync gamestate before
	}
	return g
}

package client

// PingWindow is how many of the newest snapshot pings Ping covers:
// 0.4 s of snapshots at 20 a second, so a ping shown follows a change
// of the link within a round trip and a few snapshots, as the
// scoreboards of Quake III (the last PACKET_BACKUP frames) and Source
// (the last few round trips) do, instead of averaging the whole session.
const PingWindow = 8

// Ping is the round trip a client measures on its newest snapshots: the
// time from sending the usercmd packet a snapshot acknowledges (the
// newest whose command the server had run) to the snapshot's arrival,
// server frame and client frame waits included.
type Ping struct {
	// Mean is the mean of the newest Samples pings, ms: the ping to
	// show.
	Mean float64
	// Newest is the newest snapshot's ping (Quake III's cl.snap.ping);
	// Low and High the least and the most of the Samples pings: the
	// spread of Mean.
	Newest, Low, High int32
	// Samples is how many pings Mean covers, up to PingWindow; 0 when no
	// snapshot has measured one.
	Samples int
}

// pingMeter keeps the newest PingWindow snapshot pings. The zero value
// is empty; it never allocates.
type pingMeter struct {
	ring [PingWindow]int32
	n    uint64 // pings added since the start
}

// add takes one snapshot's ping in ms; a negative one (the snapshot
// acknowledged no usercmd packet the client still remembers) measured
// nothing and is left out.
func (p *pingMeter) add(ms int32) {
	if ms < 0 {
		return
	}
	p.ring[p.n%PingWindow] = ms
	p.n++
}

// ping returns what the meter holds now.
func (p *pingMeter) ping() Ping {
	var out Ping
	out.Samples = int(min(p.n, PingWindow))
	if out.Samples == 0 {
		return out
	}
	out.Newest = p.ring[(p.n-1)%PingWindow]
	out.Low, out.High = out.Newest, out.Newest
	sum := 0
	for _, v := range p.ring[:out.Samples] {
		sum += int(v)
		out.Low, out.High = min(out.Low, v), max(out.High, v)
	}
	out.Mean = float64(sum) / float64(out.Samples)
	return out
}

// Ping returns the ping of the newest snapshots, as of the last Frame.
// The session's mean is Stats.PingAvg.
func (c *Client) Ping() Ping { return c.graph.pings.ping() }

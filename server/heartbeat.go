package server

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"tremor/net/netchan"
	"tremor/net/oob"
)

// HeartbeatInterval is how often, in milliseconds, a server running a
// map sends a heartbeat to each master (sv_master1 … sv_master5), as
// Quake III's HEARTBEAT_MSEC. It also sends one when a map loads and
// when a master cvar changes, and a final one at shutdown.
const HeartbeatInterval = 300_000

// heartbeats is what the server keeps of its masters (Quake III's
// SV_MasterHeartbeat state). Names are resolved on a goroutine of their
// own, so a slow DNS never holds up a frame; the heartbeat goes out on
// the server goroutine when the answer comes back.
type heartbeats struct {
	names [len(Config{}.Masters)]string         // the cvar values last seen
	addrs [len(Config{}.Masters)]netip.AddrPort // their last resolved addresses (the final heartbeat uses them)
	gen   [len(Config{}.Masters)]int            // bumped on each change, so a stale lookup is ignored
	due   bool                                  // send at the next frame
	last  int32                                 // svs.now of the last round
	sent  bool                                  // a round went out since start
}

// masterAddr returns name with the master port added if it has none.
func masterAddr(name string) string {
	if _, _, err := net.SplitHostPort(name); err != nil {
		return net.JoinHostPort(strings.Trim(name, "[]"), strconv.Itoa(oob.MasterPort))
	}
	return name
}

// heartbeatSoon makes the next frame send a heartbeat to every master (a
// map loaded).
func (s *Server) heartbeatSoon() { s.svs.heartbeats.due = true }

// masterHeartbeat runs once a frame (SV_MasterHeartbeat): when a
// heartbeat is due and a map is running, it resolves each master's name
// in the background and heartbeats it once resolved.
func (s *Server) masterHeartbeat() {
	hb := &s.svs.heartbeats
	for i, name := range s.cfg.Masters {
		if name != hb.names[i] {
			hb.names[i], hb.addrs[i] = name, netip.AddrPort{}
			hb.gen[i]++
			hb.due = hb.due || name != ""
		}
	}
	if s.sv == nil {
		return
	}
	if d := s.svs.now - hb.last; !hb.due && hb.sent && d < HeartbeatInterval && d >= 0 {
		return
	}
	hb.due, hb.sent, hb.last = false, true, s.svs.now
	for i, name := range hb.names {
		if name == "" {
			continue
		}
		i, name, gen := i, name, hb.gen[i]
		go func() {
			addr, err := netchan.ResolveAddr(masterAddr(name))
			s.enqueue(queued{fn: func() { s.resolvedMaster(i, gen, name, addr, err) }, done: make(chan struct{})})
		}()
	}
}

// resolvedMaster runs on the server goroutine with the answer of a
// lookup, and sends the heartbeat.
func (s *Server) resolvedMaster(i, gen int, name string, addr netip.AddrPort, err error) {
	hb := &s.svs.heartbeats
	if gen != hb.gen[i] || s.sv == nil {
		return // the cvar changed meanwhile, or the map is gone
	}
	if err != nil {
		s.logf("sv_master%d: %v", i+1, err)
		return
	}
	hb.addrs[i] = addr
	s.logf("Sending heartbeat to %s (%s)", name, addr)
	s.sendHeartbeat(addr)
}

func (s *Server) sendHeartbeat(to netip.AddrPort) {
	p := oob.Packet(oob.FormatHeartbeat(oob.HeartbeatDarkPlaces))
	s.svs.stats.OOBBytesOut += int64(len(p))
	_ = s.out.WriteTo(p, to)
}

// isMaster reports whether from is the resolved address and port of one
// of the masters the server heartbeats. Their getinfos are answered
// without the per-source query limit: the master's own getinfo cannot be
// starved by forged ones from its address on another port, and forged
// ones from its exact address and port only send infoResponses to the
// master, within the query byte budget.
func (s *Server) isMaster(from netip.AddrPort) bool {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	for _, a := range s.svs.heartbeats.addrs {
		if a.IsValid() && netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) == from {
			return true
		}
	}
	return false
}

// finalHeartbeat sends every master a last heartbeat, twice against
// loss, to the addresses last resolved, as Quake III's SV_MasterShutdown
// does. The master asks with a getinfo that nobody answers any more; it
// does not remove the server for that (a heartbeat can be forged), and
// the server leaves its list when it times out (docs/master.md).
func (s *Server) finalHeartbeat() {
	hb := &s.svs.heartbeats
	if !hb.sent {
		return
	}
	for i, addr := range hb.addrs {
		if addr.IsValid() && hb.names[i] == s.cfg.Masters[i] {
			s.logf("Sending final heartbeat to %s (%s)", hb.names[i], addr)
			s.sendHeartbeat(addr)
			s.sendHeartbeat(addr)
		}
	}
	hb.sent = false
}

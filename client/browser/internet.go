package browser

import (
	"net/netip"
	"time"

	"tremor/common/proto"
	"tremor/net/oob"
)

// internet is the state of an Internet refresh: the masters asked.
type internet struct {
	masters []master
	now     time.Time // of the last Frame, for busy
	wait    time.Duration
}

// master is one master server of an Internet refresh.
type master struct {
	label     string
	addr      netip.AddrPort // zero while resolving or if it failed
	resolving bool
	sent      time.Time // first query sent
	eot       [2]bool   // getservers, getserversExt lists complete
}

// Master queries: each master is asked in Quake III's form (IPv4
// servers) and in dpmaster's extended form (IPv4 and IPv6 servers).
var masterQueries = [2]string{
	oob.FormatGetServers(oob.GetServers{Protocol: proto.Version, Empty: true, Full: true}),
	oob.FormatGetServers(oob.GetServers{Ext: true, Game: oob.GameName, Protocol: proto.Version, Empty: true, Full: true}),
}

// busy reports whether a master may still answer.
func (in *internet) busy() bool {
	for i := range in.masters {
		m := &in.masters[i]
		if m.resolving || m.addr.IsValid() && !m.done() && (m.sent.IsZero() || in.now.Sub(m.sent) < in.wait) {
			return true
		}
	}
	return false
}

func (m *master) done() bool { return m.eot[0] && m.eot[1] }

// startInternet asks every master of the configuration for its list.
func (b *Browser) startInternet(now time.Time) {
	b.inet = internet{now: now, wait: 2 * b.cfg.Timeout}
	b.dropMasterLookups()
	for _, label := range b.cfg.Masters {
		if label == "" || len(b.inet.masters) == MaxMasters {
			continue
		}
		m := master{label: label}
		if ap, ok := parseAddr(label, DefaultMasterPort); ok {
			m.addr = ap
		} else {
			m.resolving = true
			b.queueLookup(resolveDone{master: true, gen: b.gen[Internet], label: label, port: DefaultMasterPort})
		}
		b.inet.masters = append(b.inet.masters, m)
	}
	if len(b.inet.masters) == 0 {
		b.lists[Internet].status.Note = "no master server set (cl_master1)"
		return
	}
	for i := range b.inet.masters {
		if b.inet.masters[i].addr.IsValid() {
			b.queueMaster(i)
		}
	}
}

// queueMaster queues both queries to master i.
func (b *Browser) queueMaster(i int) {
	for q := range masterQueries {
		b.queue = append(b.queue, sendItem{src: masterSource, index: i*len(masterQueries) + q, gen: b.gen[Internet]})
	}
}

// masterResolved files a master's resolved address.
func (b *Browser) masterResolved(r resolveDone) {
	if r.gen != b.gen[Internet] {
		return // a refresh started since
	}
	for i := range b.inet.masters {
		m := &b.inet.masters[i]
		if m.label != r.label || !m.resolving {
			continue
		}
		m.resolving = false
		if r.err != nil {
			b.lists[Internet].status.Note = resolveNote(r.label, r.err)
			continue
		}
		m.addr = r.addr
		b.queueMaster(i)
	}
	b.changed()
}

// masterQuery returns the destination and text of a queued master
// query, or a zero address if it is stale.
func (b *Browser) masterQuery(it sendItem, now time.Time) (netip.AddrPort, string) {
	i, q := it.index/len(masterQueries), it.index%len(masterQueries)
	if it.gen != b.gen[Internet] || i >= len(b.inet.masters) {
		return netip.AddrPort{}, ""
	}
	m := &b.inet.masters[i]
	if m.sent.IsZero() {
		m.sent = now
	}
	return m.addr, masterQueries[q]
}

// expireMasters notes the time for busy.
func (b *Browser) expireMasters(now time.Time) { b.inet.now = now }

// isServersResponse reports whether p is a getserversResponse or
// getserversExtResponse, which are binary and read whole.
func isServersResponse(p []byte) bool {
	const name = "getservers"
	if !oob.IsConnectionless(p) || len(p) < len(oob.Marker)+len(name) {
		return false
	}
	return eqFold(string(p[len(oob.Marker):len(oob.Marker)+len(name)]), name)
}

// masterResponse reads a list from a master that was asked: each address
// not yet listed becomes a Pending entry and is pinged. Lists from any
// other address are dropped.
func (b *Browser) masterResponse(p []byte, from netip.AddrPort) {
	var m *master
	for i := range b.inet.masters {
		if mm := &b.inet.masters[i]; mm.addr == from && !mm.sent.IsZero() {
			m = mm
			break
		}
	}
	if m == nil {
		return
	}
	r, err := oob.ParseServersResponse(p)
	if err != nil {
		return
	}
	for _, a := range r.Addrs {
		if _, ok := b.lists[Internet].byAddr[a]; ok {
			continue
		}
		if i := b.add(Internet, a, ""); i >= 0 {
			b.requeue(Internet, i)
		}
	}
	if r.EOT {
		if r.Ext {
			m.eot[1] = true
		} else {
			m.eot[0] = true
		}
	}
	b.changed()
}

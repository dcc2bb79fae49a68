package browser

import (
	"fmt"
	"net/netip"
	"time"

	"tremor/common/proto"
	"tremor/net/oob"
	"tremor/net/srclimit"
)

// internet is the state of an Internet refresh: the masters asked, and
// what the refresh may still send to whom.
type internet struct {
	masters []master
	now     time.Time // of the last Frame, for busy
	wait    time.Duration

	// bcast are the broadcast addresses of this machine's networks, at
	// the refresh's start: a list naming one is refused.
	bcast []netip.Addr
	// hosts are the listed servers' hosts (srclimit.Source: an IPv4
	// address or an IPv6 /64) and what each was sent.
	hosts map[netip.Addr]*host
	// pinged counts the servers queued for a ping, at most MaxPinged.
	pinged int
	// refused holds the addresses the masters listed that listable
	// refused, up to MaxEntries of them, and refusedMore counts those
	// beyond; held counts the entries listed but not pinged; note is
	// the status note last written from them.
	refused     map[netip.AddrPort]bool
	refusedMore int
	held        int
	note        string
}

// host is what an Internet refresh sent to one host.
type host struct {
	pinged   int   // its servers queued for a ping
	answered bool  // one of them answered its challenge
	held     []int // entries not pinged (NotQueried) while the host had not answered
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
	b.inet = internet{now: now, wait: 2 * b.cfg.Timeout, hosts: make(map[netip.Addr]*host)}
	if b.conn4 != nil {
		b.inet.bcast = b.cfg.Interfaces()
	}
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
// the master may list (listable) and not yet listed becomes an entry,
// pinged if its host's and the refresh's budgets allow (pingOrHold).
// Lists from any other address are dropped.
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
	master := classify(from.Addr())
	for _, a := range r.Addrs {
		a = netip.AddrPortFrom(a.Addr().Unmap().WithZone(""), a.Port())
		if !b.listable(master, a) {
			b.inet.refuse(a, b.cfg.MaxEntries)
			continue
		}
		if _, ok := b.lists[Internet].byAddr[a]; ok {
			continue
		}
		if i := b.add(Internet, a, ""); i >= 0 {
			b.pingOrHold(i)
		}
	}
	if r.EOT {
		if r.Ext {
			m.eot[1] = true
		} else {
			m.eot[0] = true
		}
	}
	b.noteInternet()
	b.changed()
}

// refuse notes a listed address refused, once however often listed
// while fewer than limit are held.
func (in *internet) refuse(a netip.AddrPort, limit int) {
	switch {
	case in.refused[a]:
	case len(in.refused) < limit:
		if in.refused == nil {
			in.refused = make(map[netip.AddrPort]bool)
		}
		in.refused[a] = true
	default:
		in.refusedMore++
	}
}

// listable reports whether a master of class master may send the
// browser to a: a port other than 0, an address that is none of this
// machine's broadcast addresses, and of a class mayList allows.
func (b *Browser) listable(master addrClass, a netip.AddrPort) bool {
	if a.Port() == 0 || contains(b.inet.bcast, a.Addr()) {
		return false
	}
	return mayList(master, classify(a.Addr()))
}

// pingOrHold queues a ping to the new Internet entry i if its host has
// been sent fewer than HostPorts of its servers (AnsweredHostPorts once
// one answered) and the refresh fewer than MaxPinged; else the entry is
// NotQueried, and waits for its host to answer if that would let it
// through.
func (b *Browser) pingOrHold(i int) {
	e := &b.lists[Internet].entries[i]
	key := srclimit.Source(e.Addr)
	h := b.inet.hosts[key]
	if h == nil {
		h = new(host)
		b.inet.hosts[key] = h
	}
	limit := HostPorts
	if h.answered {
		limit = AnsweredHostPorts
	}
	if h.pinged < limit && b.inet.pinged < MaxPinged {
		h.pinged++
		b.inet.pinged++
		b.requeue(Internet, i)
		return
	}
	e.State = NotQueried
	b.inet.held++
	if !h.answered && b.inet.pinged < MaxPinged {
		h.held = append(h.held, i)
	}
}

// hostAnswered notes that a server at from answered its Internet ping:
// its host's servers held back are pinged, up to AnsweredHostPorts.
func (b *Browser) hostAnswered(from netip.AddrPort) {
	h := b.inet.hosts[srclimit.Source(from)]
	if h == nil || h.answered {
		return
	}
	h.answered = true
	held := h.held
	h.held = nil
	for _, i := range held {
		if h.pinged >= AnsweredHostPorts || b.inet.pinged >= MaxPinged {
			break
		}
		h.pinged++
		b.inet.pinged++
		b.inet.held--
		b.requeue(Internet, i)
	}
	b.noteInternet()
}

// heldWhy says why servers are NotQueried, for the status note.
var heldWhy = fmt.Sprintf("more than %d on one host, or %d in all", HostPorts, MaxPinged)

// noteInternet says in the Internet status what the browser left out of
// the masters' lists, unless the status says something else.
func (b *Browser) noteInternet() {
	n := &b.lists[Internet].status.Note
	if *n != "" && *n != b.inet.note {
		return
	}
	*n = ""
	in := &b.inet
	refused := len(in.refused) + in.refusedMore
	switch {
	case refused > 0 && in.held > 0:
		*n = fmt.Sprintf("%d listed addresses refused (local, private or broadcast), %d servers not queried (%s)", refused, in.held, heldWhy)
	case refused > 0:
		*n = fmt.Sprintf("%d listed addresses refused (local, private or broadcast)", refused)
	case in.held > 0:
		*n = fmt.Sprintf("%d servers not queried (%s)", in.held, heldWhy)
	}
	b.inet.note = *n
}

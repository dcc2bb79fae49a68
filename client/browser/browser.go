package browser

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"tremor/common/console"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// Defaults and bounds of Config.
const (
	DefaultLANPort          = netchan.DefaultPort // 27960
	DefaultLANPorts         = 4                   // 27960-27963, as Quake III's NUM_SERVER_PORTS
	MaxLANPorts             = 64
	DefaultMasterPort       = 27950
	MaxMasters              = 5 // cl_master1 ... cl_master5
	DefaultPacketsPerSecond = 25
	DefaultLANWait          = time.Second
	DefaultTimeout          = time.Second
	DefaultRetries          = 1
	DefaultMaxEntries       = 1024
	MaxFavorites            = 256
	// MaxLabelLen is the longest favourite address taken, in bytes.
	MaxLabelLen = 64

	maxLANTargets = 256 // destinations of one LAN refresh
	recvQueueLen  = 256 // answers waiting for the next Frame, and the most one Frame reads
	socketBuffer  = 1 << 20
)

// Limits of one refresh, so that no master can aim the browser at a
// host: with them, a refresh sends one host at most 2*HostPorts
// getinfos while none of its servers answers (2*AnsweredHostPorts once
// one does) and all hosts together at most 2*MaxPinged.
const (
	// HostPorts is how many servers of one host (srclimit.Source: an
	// IPv4 address or an IPv6 /64) an Internet refresh pings while none
	// of them has answered.
	HostPorts = 4
	// AnsweredHostPorts is how many servers of one host an Internet
	// refresh pings once one of them answered its challenge: the host
	// runs game servers that answer getinfo, as a hoster's machine with
	// a dozen servers on consecutive ports does.
	AnsweredHostPorts = 16
	// MaxPinged is how many servers one Internet refresh pings in all.
	MaxPinged = 512
	// MaxRetries bounds Config.Retries: an unanswered ping is sent again
	// at most once.
	MaxRetries = 1
)

// Multicast6 is the IPv6 multicast group a LAN refresh also queries:
// ioquake3's NET_MULTICAST_IP6, ff04::696f:7175:616b:6533 (the low bytes
// spell "ioquake3"), of admin-local scope so that network administrators
// decide how far it goes. Servers join it (netchan.JoinMulticast6) to
// hear it.
var Multicast6 = netchan.Multicast6

// Store keeps the favourites between runs: a text of one address a
// line. The program backs it with its data directory.
type Store interface {
	// Load returns the saved text; an error satisfying
	// errors.Is(err, fs.ErrNotExist) means none was saved.
	Load() ([]byte, error)
	// Save replaces the saved text.
	Save(text []byte) error
}

// Config is the browser's settings. Zero fields take their defaults.
type Config struct {
	// LANPort and LANPorts are the ports a LAN refresh queries:
	// LANPort, LANPort+1, ..., LANPorts of them.
	LANPort, LANPorts int
	// Masters are the master servers an Internet refresh asks, "host"
	// or "host:port" (port DefaultMasterPort when none); empty entries
	// are skipped.
	Masters []string
	// PacketsPerSecond bounds what the browser sends: at most this many
	// packets in any window of one second.
	PacketsPerSecond int
	// LANWait is how long a LAN refresh listens after its last query.
	LANWait time.Duration
	// Timeout is how long a query to one server (or master) waits for
	// its answer before it is tried again or given up.
	Timeout time.Duration
	// Retries is how many times an unanswered query to one server is
	// sent again before its entry shows as timed out, at most
	// MaxRetries; negative means none.
	Retries int
	// MaxEntries bounds each list; answers beyond it are dropped.
	MaxEntries int
	// Store keeps the favourites; nil keeps them for this run only.
	Store Store
	// Cvars, if set, are read at each refresh: the cvars bound to them
	// (cl_master1-5, cl_lanPort, cl_lanPorts, cl_browserRate, see
	// [BindCvars]) override the fields above. Read on the goroutine that
	// calls Frame, which must be the one that sets the cvars.
	Cvars *Cvars
	// Clock stamps each answer's arrival, for pings; nil is time.Now. It
	// is called from the socket readers' goroutines.
	Clock func() time.Time
	// Interfaces returns the IPv4 broadcast destinations of a LAN
	// refresh; nil is [BroadcastAddrs] over the machine's interfaces.
	Interfaces func() []netip.Addr
	// Lookup looks up the host names of favourites and masters; nil is
	// the system's resolver (net.DefaultResolver.LookupNetIP).
	Lookup LookupFunc
}

// LookupFunc returns the addresses of a host name. The browser calls it
// from goroutines of its own, a few at a time; it must return soon after
// ctx is done.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// Cvars are the browser's settings as its cvars hold them, each field
// bound to its cvar, named in its comment, by BindCvars.
type Cvars struct {
	Masters  [MaxMasters]string // cl_master1 ... cl_master5
	LANPort  int                // cl_lanPort
	LANPorts int                // cl_lanPorts
	Rate     int                // cl_browserRate: packets a second
}

// BindCvars binds the browser's cvars to the fields of c: the one list of
// them, with their defaults, ranges, flags and help. The program gives
// c to the browser (Config.Cvars), which reads it at each refresh.
func BindCvars(v *console.Vars, c *Cvars) {
	const a = console.Archive
	ordinal := [MaxMasters]string{"", "second ", "third ", "fourth ", "fifth "}
	for i := range c.Masters {
		help := ordinal[i] + "master server the Internet tab asks"
		if i == 0 {
			help += " (host[:port], port 27950 by default)"
		}
		v.StringVar(&c.Masters[i], "cl_master"+strconv.Itoa(i+1), "", a, help)
	}
	v.IntVar(&c.LANPort, "cl_lanPort", DefaultLANPort, 1, 65535, a, "first UDP port the LAN tab queries")
	v.IntVar(&c.LANPorts, "cl_lanPorts", DefaultLANPorts, 1, MaxLANPorts, a, "how many ports, from cl_lanPort, the LAN tab queries")
	v.IntVar(&c.Rate, "cl_browserRate", DefaultPacketsPerSecond, 5, 100, a, "most packets a second the server browser sends")
}

// withDefaults returns c with its zero fields set.
func (c Config) withDefaults() Config {
	if c.LANPort <= 0 || c.LANPort > 65535 {
		c.LANPort = DefaultLANPort
	}
	if c.LANPorts <= 0 {
		c.LANPorts = DefaultLANPorts
	}
	c.LANPorts = min(c.LANPorts, MaxLANPorts, 65536-c.LANPort)
	if c.PacketsPerSecond <= 0 {
		c.PacketsPerSecond = DefaultPacketsPerSecond
	}
	if c.LANWait <= 0 {
		c.LANWait = DefaultLANWait
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	}
	c.Retries = min(max(c.Retries, 0), MaxRetries)
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Interfaces == nil {
		c.Interfaces = BroadcastAddrs
	}
	if c.Lookup == nil {
		c.Lookup = lookupHost
	}
	return c
}

// readCvars overrides c's fields with the cvars' values cv holds.
func (c Config) readCvars(cv *Cvars) Config {
	if cv == nil {
		return c
	}
	c.Masters = nil
	for _, m := range cv.Masters {
		if m != "" {
			c.Masters = append(c.Masters, m)
		}
	}
	c.LANPort, c.LANPorts, c.PacketsPerSecond = cv.LANPort, cv.LANPorts, cv.Rate
	return c.withDefaults()
}

// Status is a list's state, for the menu's status line.
type Status struct {
	Refreshing bool // queries are out or queued
	Entries    int  // entries in the list
	Answered   int  // of which answered
	// Note says what went wrong or is missing ("no master server set
	// (cl_master1)", "favourites not saved: ..."); "" if nothing.
	Note string
}

// list is one source's entries and the queries behind them.
type list struct {
	entries []Entry
	queries []query
	byAddr  map[netip.AddrPort]int // entry index by address
	status  Status
	asked   bool // refreshed at least once
}

// query is the state of the getinfo behind an entry.
type query struct {
	challenge string
	sent      time.Time // last send; zero while queued
	attempts  int
	queued    bool
}

// target is one destination of a LAN refresh.
type target struct {
	addr      netip.AddrPort
	within    netip.Prefix // broadcast: answers come from this network
	multicast bool         // answers come from any IPv6 address
	challenge string
	sent      time.Time
}

// sendItem is one packet waiting for the pacer.
type sendItem struct {
	src   Source
	index int // LAN: target; masters: master; others: entry
	gen   uint32
}

// masterSource marks a master query in the send queue.
const masterSource = NumSources

// Browser is the server browser's model. Make one with [Open] or [New].
type Browser struct {
	cfg       Config
	conn4     netchan.Conn
	conn6     netchan.Conn
	recv      *recvQueue
	lists     [NumSources]list
	want      [NumSources]bool // refresh asked, started by the next Frame
	gen       [NumSources]uint32
	targets   []target // the LAN refresh's
	lanEnd    time.Time
	own       map[netip.Addr]bool // this machine's addresses, at the last LAN refresh
	queue     []sendItem
	pace      pacer
	favorites []string
	lookups   []resolveDone    // names waiting for startLookups
	favLookup map[string]bool  // favourites' names queued or being looked up
	running   int              // lookups started whose answer was not taken
	resolved  chan resolveDone // their answers
	ctx       context.Context  // done at Close: the lookups stop
	cancel    context.CancelFunc
	wg        sync.WaitGroup // the lookups' goroutines
	inet      internet
	version   uint64
	now       time.Time
	pkt       []byte
	buf       []byte
	sent      int

	noLoopback bool // tests: LAN queries go to broadcast and multicast only
}

// Open opens the browser's sockets, an IPv4 one and, if the machine has
// IPv6, an IPv6 one, each on an ephemeral port, and loads the
// favourites.
func Open(cfg Config) (*Browser, error) {
	c4, err := listen("udp4", "0.0.0.0:0")
	if err != nil {
		return nil, err
	}
	c6, err := listen("udp6", "[::]:0")
	if err != nil {
		c6 = nil // no IPv6: LAN queries go out on IPv4 only
	}
	return New(cfg, c4, c6), nil
}

// New returns a browser sending and receiving on conn4 (IPv4
// destinations) and conn6 (IPv6 ones); either may be nil, and they may
// be the same Conn. It reads each on a goroutine of its own until
// [Browser.Close], and loads the favourites from cfg.Store.
func New(cfg Config, conn4, conn6 netchan.Conn) *Browser {
	cfg = cfg.withDefaults()
	b := &Browser{
		cfg:       cfg,
		conn4:     conn4,
		conn6:     conn6,
		recv:      newRecvQueue(recvQueueLen),
		resolved:  make(chan resolveDone, maxLookups),
		favLookup: make(map[string]bool),
		pkt:       make([]byte, 0, oob.MaxPacketLen),
		buf:       make([]byte, oob.MaxReceivedLen+1),
	}
	for s := range b.lists {
		b.lists[s].byAddr = make(map[netip.AddrPort]int)
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.pace.init(cfg.PacketsPerSecond)
	if conn4 != nil {
		go b.recv.pump(conn4, cfg.Clock)
	}
	if conn6 != nil && conn6 != conn4 {
		go b.recv.pump(conn6, cfg.Clock)
	}
	b.loadFavorites()
	return b
}

// Close closes the browser's sockets, and stops the name lookups in
// progress and waits for them to return.
func (b *Browser) Close() error {
	b.cancel()
	defer b.wg.Wait()
	var err error
	if b.conn4 != nil {
		err = b.conn4.Close()
	}
	if b.conn6 != nil && b.conn6 != b.conn4 {
		err = errors.Join(err, b.conn6.Close())
	}
	b.recv.close()
	return err
}

// Refresh asks for a refresh of src: the next Frame clears the LAN list
// and queries the network again, asks the masters again, or pings every
// favourite again. A refresh in progress starts over.
func (b *Browser) Refresh(src Source) {
	if src < NumSources {
		b.want[src] = true
	}
}

// Refreshing reports whether src has queries out or queued, or a refresh
// asked for.
func (b *Browser) Refreshing(src Source) bool {
	return src < NumSources && (b.want[src] || b.lists[src].status.Refreshing)
}

// Refreshed reports whether src was ever refreshed (or is about to be):
// the menu refreshes a list the first time it is shown.
func (b *Browser) Refreshed(src Source) bool {
	return src < NumSources && (b.want[src] || b.lists[src].asked)
}

// Status returns src's state.
func (b *Browser) Status(src Source) Status {
	if src >= NumSources {
		return Status{}
	}
	st := b.lists[src].status
	st.Refreshing = b.Refreshing(src)
	return st
}

// Entries returns src's entries in their order of arrival. The slice
// belongs to the browser and is valid until the next Frame, Refresh or
// favourite change.
func (b *Browser) Entries(src Source) []Entry {
	if src >= NumSources {
		return nil
	}
	return b.lists[src].entries
}

// List appends to dst[:0] src's entries that o keeps, sorted by o.
func (b *Browser) List(dst []Entry, src Source, o Order) []Entry {
	return List(dst, b.Entries(src), o)
}

// Version returns a number that changes whenever any list or status
// changes, so that a reader re-sorts only then.
func (b *Browser) Version() uint64 { return b.version }

// Sent returns how many packets the browser has sent.
func (b *Browser) Sent() int { return b.sent }

func (b *Browser) changed() { b.version++ }

// Frame does the browser's work for one frame at time now: it starts the
// refreshes asked for, reads the answers that arrived, marks the queries
// that waited too long, and sends what the pacing allows. It never
// blocks.
func (b *Browser) Frame(now time.Time) {
	b.now = now
	b.takeResolved()
	for s := range NumSources {
		if b.want[s] {
			b.want[s] = false
			b.start(s, now)
		}
	}
	// At most a queue's worth: a flood arriving while Frame reads does
	// not keep it from returning.
	for range recvQueueLen {
		n, from, at, ok := b.recv.pop(b.buf)
		if !ok {
			break
		}
		b.handle(b.buf[:n], from, at)
	}
	b.expire(now)
	b.startLookups(now)
	b.send(now)
	b.updateStatus(now)
}

// start begins a refresh of src.
func (b *Browser) start(src Source, now time.Time) {
	if b.cfg.Cvars != nil {
		b.cfg = b.cfg.readCvars(b.cfg.Cvars)
		b.pace.init(b.cfg.PacketsPerSecond)
	}
	b.gen[src]++
	b.dropQueued(src)
	l := &b.lists[src]
	l.asked = true
	l.status.Note = ""
	switch src {
	case LAN:
		b.clear(src)
		b.startLAN(now)
	case Internet:
		b.clear(src)
		b.dropQueued(masterSource)
		b.startInternet(now)
	case Favorites:
		b.rebuildFavorites()
		for i := range l.entries {
			if e := &l.entries[i]; !e.Addr.IsValid() {
				e.State = Pending // looked up again, however the last lookup went
				b.queueLookup(resolveDone{gen: b.gen[Favorites], label: e.Label, port: DefaultLANPort})
				continue
			}
			b.requeue(src, i)
		}
	}
	b.changed()
}

// clear empties src's list.
func (b *Browser) clear(src Source) {
	l := &b.lists[src]
	clear(l.entries)
	l.entries = l.entries[:0]
	l.queries = l.queries[:0]
	clear(l.byAddr)
}

// dropQueued removes src's items from the send queue.
func (b *Browser) dropQueued(src Source) {
	q := b.queue[:0]
	for _, it := range b.queue {
		if it.src != src {
			q = append(q, it)
		}
	}
	b.queue = q
}

// requeue queues a fresh query to entry i of src.
func (b *Browser) requeue(src Source, i int) {
	l := &b.lists[src]
	e, q := &l.entries[i], &l.queries[i]
	if !e.Addr.IsValid() {
		return // a favourite whose name is not resolved (yet)
	}
	e.State = Pending // the last answer's fields stay shown until the next
	q.queued, q.sent, q.attempts = true, time.Time{}, 0
	b.queue = append(b.queue, sendItem{src: src, index: i, gen: b.gen[src]})
}

// add appends an entry for addr to src, unless src has one or is full;
// it returns the entry's index, or -1.
func (b *Browser) add(src Source, addr netip.AddrPort, label string) int {
	l := &b.lists[src]
	if i, ok := l.byAddr[addr]; ok && addr.IsValid() {
		return i
	}
	if len(l.entries) >= b.cfg.MaxEntries {
		return -1
	}
	if label == "" {
		label = addr.String()
	}
	l.entries = append(l.entries, Entry{Label: label, Addr: addr})
	l.queries = append(l.queries, query{})
	if addr.IsValid() {
		l.byAddr[addr] = len(l.entries) - 1
	}
	return len(l.entries) - 1
}

// newChallenge returns a fresh random challenge.
func newChallenge() string {
	return strconv.FormatUint(rand.Uint64(), 36)
}

// send sends queued packets while the pacer allows.
func (b *Browser) send(now time.Time) {
	n := 0
	for n < len(b.queue) && b.pace.allow(now) {
		it := b.queue[n]
		n++
		var to netip.AddrPort
		var challenge string
		var text string
		switch {
		case it.src == LAN:
			if it.gen != b.gen[LAN] || it.index >= len(b.targets) {
				continue
			}
			t := &b.targets[it.index]
			t.sent = now
			to, challenge = t.addr, t.challenge
			b.lanEnd = now.Add(b.cfg.LANWait)
		case it.src == masterSource:
			to, text = b.masterQuery(it, now)
			if !to.IsValid() {
				continue
			}
		default:
			l := &b.lists[it.src]
			if it.gen != b.gen[it.src] || it.index >= len(l.entries) {
				continue
			}
			q := &l.queries[it.index]
			if !q.queued {
				continue
			}
			q.queued = false
			q.sent = now
			q.attempts++
			q.challenge = newChallenge()
			to, challenge = l.entries[it.index].Addr, q.challenge
		}
		if text == "" {
			text = oob.FormatGetInfo(challenge)
		}
		b.pace.note(now)
		b.write(to, text)
	}
	b.queue = append(b.queue[:0], b.queue[n:]...)
}

// write sends one connectionless packet; errors (no route, no IPv6) are
// the same as a loss.
func (b *Browser) write(to netip.AddrPort, text string) {
	c := b.conn4
	if to.Addr().Is6() {
		c = b.conn6
	}
	b.sent++
	if c == nil {
		return
	}
	b.pkt = oob.AppendPacket(b.pkt[:0], text)
	_ = c.WriteTo(b.pkt, to)
}

// expire marks queries that waited too long.
func (b *Browser) expire(now time.Time) {
	for _, src := range [...]Source{Internet, Favorites} {
		l := &b.lists[src]
		for i := range l.entries {
			e, q := &l.entries[i], &l.queries[i]
			if e.State != Pending || q.queued || q.sent.IsZero() || now.Sub(q.sent) < b.cfg.Timeout {
				continue
			}
			if q.attempts <= b.cfg.Retries {
				q.queued = true
				b.queue = append(b.queue, sendItem{src: src, index: i, gen: b.gen[src]})
				continue
			}
			q.sent = time.Time{}
			e.State = TimedOut
			b.changed()
		}
	}
	b.expireMasters(now)
}

// updateStatus counts each list and says whether it is still busy.
func (b *Browser) updateStatus(now time.Time) {
	for s := range NumSources {
		l := &b.lists[s]
		busy := false
		answered := 0
		for i := range l.entries {
			switch l.entries[i].State {
			case Pending:
				busy = busy || l.entries[i].Addr.IsValid() || s == Favorites && b.favLookup[l.entries[i].Label]
			case Answered:
				answered++
			}
		}
		for _, it := range b.queue {
			busy = busy || it.src == s
		}
		switch s {
		case LAN:
			busy = busy || now.Before(b.lanEnd)
		case Internet:
			busy = busy || b.inet.busy()
		}
		st := Status{Refreshing: busy, Entries: len(l.entries), Answered: answered, Note: l.status.Note}
		if st != l.status {
			l.status = st
			b.changed()
		}
	}
}

// handle reads one received packet.
func (b *Browser) handle(p []byte, from netip.AddrPort, at time.Time) {
	if isServersResponse(p) {
		b.masterResponse(p, from)
		return
	}
	text, err := oob.Parse(p)
	if err != nil || !eqFold(oob.Command(text), oob.CmdInfoResponse) {
		return
	}
	info, err := oob.ParseInfoResponse(text)
	if err != nil {
		return
	}
	b.infoResponse(info, from, at)
}

// eqFold reports whether a and b are equal ignoring ASCII case.
func eqFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// infoResponse files an answer under the query it answers: the LAN
// refresh's destination whose challenge it carries, or the Internet or
// Favorites entry of its source address whose last challenge it
// carries. Anything else is dropped.
func (b *Browser) infoResponse(info string, from netip.AddrPort, at time.Time) {
	si := parseInfo(info)
	if si.challenge == "" {
		return
	}
	for _, src := range [...]Source{Internet, Favorites} {
		l := &b.lists[src]
		i, ok := l.byAddr[from]
		if !ok {
			continue
		}
		e, q := &l.entries[i], &l.queries[i]
		if q.sent.IsZero() || q.challenge != si.challenge {
			continue
		}
		fill(e, &si, at.Sub(q.sent)-si.hold)
		q.sent = time.Time{}
		if src == Internet {
			b.hostAnswered(from)
		}
		b.changed()
	}
	for i := range b.targets {
		t := &b.targets[i]
		if t.challenge == si.challenge && !t.sent.IsZero() && t.accepts(from) {
			b.lanAnswer(from, &si, at.Sub(t.sent)-si.hold)
			return
		}
	}
}

// fill stores an answer in e.
func fill(e *Entry, si *serverInfo, rtt time.Duration) {
	e.State = Answered
	e.HostName, e.Map = si.hostName, si.mapName
	e.Humans, e.Bots, e.Max = si.humans, si.bots, si.max
	e.GameType, e.Protocol = si.gameType, si.protocol
	e.Ping = max(0, int(rtt.Round(time.Millisecond)/time.Millisecond))
}

// accepts reports whether an answer from from could answer a query to t:
// same port, and the exact address for a unicast destination, an
// address of the broadcast's network, or any IPv6 address for the
// multicast group.
func (t *target) accepts(from netip.AddrPort) bool {
	if from.Port() != t.addr.Port() {
		return false
	}
	switch {
	case t.multicast:
		return from.Addr().Is6() && !from.Addr().Is4In6()
	case t.within.IsValid():
		return t.within.Contains(from.Addr())
	}
	return from.Addr() == t.addr.Addr()
}

// listen opens a UDP socket as a netchan.Conn.
func listen(network, addr string) (netchan.Conn, error) {
	ua, err := net.ResolveUDPAddr(network, addr)
	if err != nil {
		return nil, fmt.Errorf("browser: listen %s %q: %w", network, addr, err)
	}
	c, err := net.ListenUDP(network, ua)
	if err != nil {
		return nil, fmt.Errorf("browser: listen %s %q: %w", network, addr, err)
	}
	// Room in the system's buffer for a burst of answers (a LAN flood)
	// while the reader is not running; the system may grant less.
	_ = c.SetReadBuffer(socketBuffer)
	return &udpConn{c: c}, nil
}

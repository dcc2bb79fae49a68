package netchan

import (
	"net/netip"
	"time"
)

// Packet is one datagram of a batch (BatchConn): for WriteBatch, Buf is
// the packet and Addr its destination; for ReadBatch, Buf is the buffer
// to read into, and ReadBatch sets N to the packet's length, Addr to its
// sender and Time to when it arrived.
type Packet struct {
	Buf  []byte
	N    int
	Addr netip.AddrPort
	// Time is when the packet reached the host, as the kernel stamped
	// it (wall clock, no monotonic reading), or zero if unknown.
	Time time.Time
}

// MaxBatch is the most packets one ReadBatch or WriteBatch system call
// moves; longer batches take several calls. It is here, not beside the
// Linux calls, because the server sizes its queues by it on every
// platform.
const MaxBatch = 64

// BatchConn is a Conn that moves several packets per system call
// (recvmmsg and sendmmsg): UDPConn on Linux. A server reads every packet
// waiting at once and sends a whole frame's packets at once through it,
// instead of paying a system call, and often a wake-up, per packet.
// ReadBatch and WriteBatch may run at the same time as each other, but
// neither may run on two goroutines at once.
type BatchConn interface {
	Conn
	// ReadBatch reads the packets already waiting, up to len(ps), without
	// blocking: it returns how many it read into ps[:n], and n == 0 with
	// a nil error when none was waiting. A packet longer than its Buf is
	// truncated. It returns net.ErrClosed once the conn is closed; it
	// ignores the read deadline, except that a deadline already passed
	// may make it return an error satisfying
	// errors.Is(err, os.ErrDeadlineExceeded) without reading.
	ReadBatch(ps []Packet) (n int, err error)
	// WriteBatch sends ps[i].Buf to ps[i].Addr, in order, and returns
	// how many it sent: all of them, or those before the one that
	// failed, with that packet's error. Bufs may be reused as soon as it
	// returns.
	WriteBatch(ps []Packet) (n int, err error)
}

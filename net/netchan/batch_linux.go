package netchan

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

var _ BatchConn = (*UDPConn)(nil)

// errShortBatch is what WriteBatch returns if sendmmsg sends nothing and
// reports no error (it never should).
var errShortBatch = errors.New("netchan: sendmmsg sent no packet")

// udpBatch holds a UDPConn's batch state, one part per direction, so
// that a read and a write may run at the same time.
type udpBatch struct {
	r reader
	w writer
}

// writer is WriteBatch's side: x/net's sendmmsg, with the message
// headers and addresses it fills kept from call to call, so that steady
// batches allocate nothing.
type writer struct {
	batch func(ms []ipv4.Message, flags int) (int, error) // WriteBatch of an ipv4 or ipv6 PacketConn
	ms    [MaxBatch]ipv4.Message
	bufs  [MaxBatch][1][]byte
	addrs [MaxBatch]net.UDPAddr
	ips   [MaxBatch][16]byte
}

// reader is ReadBatch's side: recvmmsg called directly, because x/net's
// ReadBatch returns every sender as a new *net.UDPAddr (two allocations
// per packet). Its headers, addresses and control buffers are kept from
// call to call; the socket stamps each packet with its arrival time
// (SO_TIMESTAMPNS).
type reader struct {
	rc    syscall.RawConn
	read  func(fd uintptr) bool // r.recvmmsg, bound once
	hs    [MaxBatch]mmsghdr
	iovs  [MaxBatch]syscall.Iovec
	names [MaxBatch]syscall.RawSockaddrInet6
	oobs  [MaxBatch][oobLen]byte
	k, n  int
	errno syscall.Errno
}

// mmsghdr is struct mmsghdr of recvmmsg(2).
type mmsghdr struct {
	hdr syscall.Msghdr
	len uint32
}

// oobLen is room for one SCM_TIMESTAMPNS control message.
const oobLen = syscall.SizeofCmsghdr + 16 + 8

// newUDPBatch makes c's batch state: writes through an ipv4.PacketConn
// for an IPv4 socket, an ipv6.PacketConn for any other (IPv6,
// dual-stack); reads through c's raw conn, arrival times turned on.
func newUDPBatch(c *net.UDPConn, local netip.AddrPort) *udpBatch {
	b := new(udpBatch)
	if local.Addr().Is4() {
		b.w.batch = ipv4.NewPacketConn(c).WriteBatch
	} else {
		p := ipv6.NewPacketConn(c)
		b.w.batch = func(ms []ipv4.Message, flags int) (int, error) { return p.WriteBatch(ms, flags) }
	}
	for i := range b.w.ms {
		b.w.ms[i].Buffers = b.w.bufs[i][:]
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	_ = rc.Control(func(fd uintptr) {
		// Without arrival times ReadBatch leaves Packet.Time zero.
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	})
	b.r.rc = rc
	b.r.read = b.r.recvmmsg
	return b
}

// recvmmsg is the raw conn's read function: one non-blocking recvmmsg
// of r.k packets.
func (r *reader) recvmmsg(fd uintptr) bool {
	n, _, errno := syscall.Syscall6(syscall.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&r.hs[0])), uintptr(r.k),
		syscall.MSG_DONTWAIT, 0, 0)
	r.n, r.errno = int(n), errno
	if errno != 0 {
		r.n = 0
	}
	return true
}

// ReadBatch implements BatchConn with recvmmsg, MaxBatch packets at most
// per call, and sets every Packet's Time. It does not allocate.
func (u *UDPConn) ReadBatch(ps []Packet) (int, error) {
	if u.batch == nil {
		return 0, errors.New("netchan: ReadBatch: no raw socket")
	}
	r := &u.batch.r
	done := 0
	for done < len(ps) {
		k := min(len(ps)-done, MaxBatch)
		for i := range k {
			buf := ps[done+i].Buf
			iov := &r.iovs[i]
			iov.Base = nil
			if len(buf) > 0 {
				iov.Base = &buf[0]
			}
			iov.SetLen(len(buf))
			h := &r.hs[i]
			h.hdr = syscall.Msghdr{Name: (*byte)(unsafe.Pointer(&r.names[i])), Namelen: syscall.SizeofSockaddrInet6,
				Iov: iov, Control: &r.oobs[i][0]}
			h.hdr.Iovlen = 1
			h.hdr.SetControllen(oobLen)
			h.len = 0
		}
		r.k = k
		err := r.rc.Read(r.read)
		for i := range k {
			r.iovs[i].Base = nil // do not keep the caller's buffers alive
		}
		if err != nil {
			return done, err
		}
		if r.errno != 0 {
			if r.errno == syscall.EAGAIN || r.errno == syscall.EWOULDBLOCK {
				return done, nil
			}
			return done, os.NewSyscallError("recvmmsg", r.errno)
		}
		for i := range r.n {
			h := &r.hs[i]
			p := &ps[done+i]
			p.N = min(int(h.len), len(p.Buf))
			p.Addr = sockaddrPort(&r.names[i])
			p.Time = arrivalTime(r.oobs[i][:min(int(h.hdr.Controllen), oobLen)])
		}
		done += r.n
		if r.n < k {
			break
		}
	}
	return done, nil
}

// sockaddrPort turns the sockaddr recvmmsg filled in into an unmapped
// address, with an IPv6 scope as its numeric zone.
func sockaddrPort(sa *syscall.RawSockaddrInet6) netip.AddrPort {
	port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:])
	switch sa.Family {
	case syscall.AF_INET:
		sa4 := (*syscall.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), port)
	case syscall.AF_INET6:
		a := netip.AddrFrom16(sa.Addr)
		if a.Is4In6() {
			return netip.AddrPortFrom(a.Unmap(), port)
		}
		if sa.Scope_id != 0 {
			a = a.WithZone(strconv.FormatUint(uint64(sa.Scope_id), 10))
		}
		return netip.AddrPortFrom(a, port)
	}
	return netip.AddrPort{}
}

// arrivalTime reads the SCM_TIMESTAMPNS control message in oob, or
// returns the zero time.
func arrivalTime(oob []byte) time.Time {
	const hdr = syscall.SizeofCmsghdr
	for len(oob) >= hdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < hdr || l > len(oob) {
			break
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && l >= hdr+int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&oob[hdr]))
			return time.Unix(int64(ts.Sec), int64(ts.Nsec))
		}
		oob = oob[min(cmsgAlign(l), len(oob)):]
	}
	return time.Time{}
}

// cmsgAlign rounds a control message length up as CMSG_ALIGN does.
func cmsgAlign(l int) int {
	const a = int(unsafe.Sizeof(uintptr(0)))
	return (l + a - 1) &^ (a - 1)
}

// WriteBatch implements BatchConn with sendmmsg, MaxBatch packets at
// most per call. It does not allocate.
func (u *UDPConn) WriteBatch(ps []Packet) (int, error) {
	if u.batch == nil {
		return 0, errors.New("netchan: WriteBatch: no raw socket")
	}
	b := &u.batch.w
	done := 0
	for done < len(ps) {
		k := min(len(ps)-done, MaxBatch)
		for i := range k {
			p := &ps[done+i]
			b.bufs[i][0] = p.Buf
			ua := &b.addrs[i]
			a := p.Addr.Addr()
			if a.Is4() {
				a4 := a.As4()
				ua.IP = append(b.ips[i][:0], a4[:]...)
			} else {
				a16 := a.As16()
				ua.IP = append(b.ips[i][:0], a16[:]...)
			}
			ua.Port = int(p.Addr.Port())
			ua.Zone = a.Zone()
			b.ms[i].Addr = ua
		}
		n, err := b.batch(b.ms[:k], 0)
		for i := range k {
			b.bufs[i][0] = nil
		}
		done += max(n, 0)
		if err != nil {
			return done, err
		}
		if n <= 0 {
			return done, errShortBatch
		}
	}
	return done, nil
}

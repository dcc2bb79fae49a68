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

// writer is WriteBatch's side: sendmmsg called directly, with the
// message headers and addresses kept from call to call, so that steady
// batches allocate nothing.
type writer struct {
	rc    syscall.RawConn
	write func(fd uintptr) bool // w.sendmmsg, bound once
	inet6 bool                  // the socket is AF_INET6 (IPv6 or dual-stack)
	hs    [MaxBatch]mmsghdr
	iovs  [MaxBatch]syscall.Iovec
	names [MaxBatch]syscall.RawSockaddrInet6
	k, n  int
	errno syscall.Errno
}

// reader is ReadBatch's side: recvmmsg called directly (x/net's
// ReadBatch would return every sender as a new *net.UDPAddr, two
// allocations per packet, and tremor/net imports only the standard
// library). Its headers, addresses and control buffers are kept from
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

// newUDPBatch makes c's batch state, reading and writing through c's
// raw conn, arrival times turned on.
func newUDPBatch(c *net.UDPConn, local netip.AddrPort) *udpBatch {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	b := new(udpBatch)
	_ = rc.Control(func(fd uintptr) {
		// Without arrival times ReadBatch leaves Packet.Time zero.
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		if sa, err := syscall.Getsockname(int(fd)); err == nil {
			_, b.w.inet6 = sa.(*syscall.SockaddrInet6)
		}
	})
	b.r.rc, b.w.rc = rc, rc
	b.r.read = b.r.recvmmsg
	b.w.write = b.w.sendmmsg
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

// sendmmsg is the raw conn's write function: one sendmmsg of w.k
// packets, waiting for room in the socket's buffer if it has none.
func (w *writer) sendmmsg(fd uintptr) bool {
	n, _, errno := syscall.Syscall6(sysSENDMMSG, fd, uintptr(unsafe.Pointer(&w.hs[0])), uintptr(w.k), 0, 0, 0)
	w.n, w.errno = int(n), errno
	if errno != 0 {
		w.n = 0
	}
	return errno != syscall.EAGAIN && errno != syscall.EWOULDBLOCK
}

// putAddr writes to into name i as the socket's family wants it (an
// IPv4 address IPv4-mapped on an AF_INET6 socket) and returns its length,
// or 0 if the socket cannot send there.
func (w *writer) putAddr(i int, to netip.AddrPort) uint32 {
	sa := &w.names[i]
	*sa = syscall.RawSockaddrInet6{}
	a := to.Addr()
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], to.Port())
	if !w.inet6 {
		if !a.Unmap().Is4() {
			return 0
		}
		sa4 := (*syscall.RawSockaddrInet4)(unsafe.Pointer(sa))
		sa4.Family = syscall.AF_INET
		sa4.Addr = a.Unmap().As4()
		return syscall.SizeofSockaddrInet4
	}
	sa.Family = syscall.AF_INET6
	sa.Addr = a.As16()
	if z := a.Zone(); z != "" {
		if id, err := strconv.ParseUint(z, 10, 32); err == nil {
			sa.Scope_id = uint32(id)
		} else if ifi, err := net.InterfaceByName(z); err == nil {
			sa.Scope_id = uint32(ifi.Index)
		}
	}
	return syscall.SizeofSockaddrInet6
}

// errAddrFamily is WriteBatch's error for an IPv6 destination on an IPv4
// socket.
var errAddrFamily = errors.New("netchan: WriteBatch: an IPv6 destination for an IPv4 socket")

// WriteBatch implements BatchConn with sendmmsg, MaxBatch packets at
// most per call. It does not allocate.
func (u *UDPConn) WriteBatch(ps []Packet) (int, error) {
	if u.batch == nil {
		return 0, errors.New("netchan: WriteBatch: no raw socket")
	}
	w := &u.batch.w
	done := 0
	for done < len(ps) {
		k := min(len(ps)-done, MaxBatch)
		for i := range k {
			p := &ps[done+i]
			namelen := w.putAddr(i, p.Addr)
			if namelen == 0 {
				if i == 0 {
					return done, errAddrFamily
				}
				k = i // send those before it; the next call reports it
				break
			}
			iov := &w.iovs[i]
			iov.Base = nil
			if len(p.Buf) > 0 {
				iov.Base = &p.Buf[0]
			}
			iov.SetLen(len(p.Buf))
			h := &w.hs[i]
			h.hdr = syscall.Msghdr{Name: (*byte)(unsafe.Pointer(&w.names[i])), Namelen: namelen, Iov: iov}
			h.hdr.Iovlen = 1
			h.len = 0
		}
		w.k = k
		err := w.rc.Write(w.write)
		for i := range k {
			w.iovs[i].Base = nil // do not keep the caller's buffers alive
		}
		if err != nil {
			return done, err
		}
		if w.errno != 0 {
			return done, os.NewSyscallError("sendmmsg", w.errno)
		}
		if w.n <= 0 {
			return done, errShortBatch
		}
		done += w.n
	}
	return done, nil
}

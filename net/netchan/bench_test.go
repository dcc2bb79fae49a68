package netchan

import (
	"encoding/binary"
	"testing"
)

func BenchmarkTransmit(b *testing.B) {
	conn := &ringConn{}
	c := New(conn, serverAddr, ClientSide, testQport)
	msg := makeMsg(200, 1)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		conn.reset()
		if err := c.Transmit(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProcess(b *testing.B) {
	c := New(&ringConn{}, clientAddr, ServerSide, testQport)
	p := packet(Header{Sequence: 1, HasQport: true, Qport: testQport}, makeMsg(200, 1))
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	seq := uint32(0)
	for b.Loop() {
		seq++
		binary.LittleEndian.PutUint16(p, uint16(seq&SequenceMask))
		if _, ok, err := c.Process(p); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkFragmentRoundTrip(b *testing.B) {
	conn := &ringConn{}
	client := New(conn, serverAddr, ClientSide, testQport)
	server := New(conn, clientAddr, ServerSide, testQport)
	msg := makeMsg(4000, 1)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		conn.reset()
		if err := client.Transmit(msg); err != nil {
			b.Fatal(err)
		}
		if err := client.Flush(); err != nil {
			b.Fatal(err)
		}
		ok := false
		for _, p := range conn.packets() {
			var err error
			if _, ok, err = server.Process(p); err != nil {
				b.Fatal(err)
			}
		}
		if !ok {
			b.Fatal("not delivered")
		}
	}
}

func BenchmarkScramble(b *testing.B) {
	data := makeMsg(1000, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Scramble(data, 0xdeadbeef, "say hello there")
	}
}

func BenchmarkLoopback(b *testing.B) {
	a, c := NewLoopback()
	p := makeMsg(200, 1)
	buf := make([]byte, MaxPacketLen)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if err := a.WriteTo(p, c.LocalAddr()); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.ReadFrom(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUDP(b *testing.B) {
	a, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p := makeMsg(200, 1)
	buf := make([]byte, MaxPacketLen)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if err := a.WriteTo(p, c.LocalAddr()); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.ReadFrom(buf); err != nil {
			b.Fatal(err)
		}
	}
}

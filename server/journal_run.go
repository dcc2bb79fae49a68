package server

import "net/netip"

// JournalHooks let the dedicated server's event journal (docs/journal.md)
// see every event Run hands the engine, in order, on the server
// goroutine: each packet read, with its source and the time it is handed
// to Packet, and each Frame, with its time. A program that replays a
// journal calls Packet and Frame itself and needs no hooks.
type JournalHooks struct {
	// Begin is called at the start of each iteration of Run, before its
	// packets, with the time its Frame runs at. The iteration's packets
	// may carry earlier times: on a netchan.BatchConn, Run reads them
	// when a frame is due and hands each over at the time it arrived.
	Begin func(now int32)
	// Packet is called with each packet Run read, just before Packet
	// handles it at the same now; data is valid during the call only.
	Packet func(now int32, from netip.AddrPort, data []byte)
	// Frame is called just before each Frame Run calls. It may queue
	// console text (Console().Append): Frame runs it.
	Frame func(now int32)
	// FrameDone is called just after that Frame: FrameHash and
	// GameStates then give the frame's result.
	FrameDone func(now int32)
}

// SetJournal makes Run call h's functions (nil: none). Call it before
// Run.
func (s *Server) SetJournal(h *JournalHooks) { s.journal = h }

// Wake makes Run run a Frame at once, without waiting for a packet or
// the next server frame: a journal that queues console text from
// another goroutine calls it, as Exec does.
func (s *Server) Wake() { s.wakeUp() }

// beginEvent starts an iteration of Run that will run Frame at now,
// seen by the journal.
func (s *Server) beginEvent(now int32) {
	if h := s.journal; h != nil && h.Begin != nil {
		h.Begin(now)
	}
}

// packetEvent is Run's Packet, seen by the journal.
func (s *Server) packetEvent(now int32, from netip.AddrPort, data []byte) {
	if h := s.journal; h != nil && h.Packet != nil {
		h.Packet(now, from, data)
	}
	s.Packet(now, from, data)
}

// frameEvent is Run's Frame, seen by the journal.
func (s *Server) frameEvent(now int32) {
	h := s.journal
	if h != nil && h.Frame != nil {
		h.Frame(now)
	}
	s.Frame(now)
	if h != nil && h.FrameDone != nil {
		h.FrameDone(now)
	}
}

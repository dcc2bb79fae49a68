package client

import (
	"time"

	"tremor/net/msg"
)

// Stats are a client's counters since New. Bytes and packets count UDP
// payloads (netchan or connectionless packets, headers included; no IP or
// UDP headers). Up counts what the client sent before cl_packetloss and
// the other impairments; down counts what reached it.
type Stats struct {
	BytesUp, PacketsUp     uint64
	BytesDown, PacketsDown uint64
	// Messages counts the server messages delivered by the netchan.
	Messages uint64

	Snapshots            uint64 // decoded from a usable base
	SnapshotsFull        uint64 // of which not delta-coded
	SnapshotsRateDelayed uint64 // of which flagged proto.SnapRateDelayed
	// SnapshotsDropped counts the server messages lost on the way: the
	// gaps in message numbers.
	SnapshotsDropped uint64
	// SnapshotsInvalid counts snapshots delta-coded from a base the
	// client no longer had (DeltaTooOld tells how often): read and
	// thrown away.
	SnapshotsInvalid uint64
	DeltaTooOld      uint64
	// SnapshotsStale counts valid snapshots that did not move server
	// time forward: kept as delta bases, never shown.
	SnapshotsStale uint64
	Gamestates     uint64

	ServerCommands uint64 // executed, each once
	// ServerCommandGaps counts server commands skipped in the sequence;
	// reliability makes it zero on any network.
	ServerCommandGaps uint64

	// DownloadBlocks counts map download data blocks taken;
	// DownloadBlocksIgnored those ignored (duplicates, out of order, not
	// asked for).
	DownloadBlocks, DownloadBlocksIgnored uint64

	CommandsSent    uint64 // reliable commands queued
	CommandsRefused uint64 // refused by AddReliableCommand

	// ReliableBitsUp counts the coded bits of the client commands in the
	// messages sent, every copy and resend included: on the rings every
	// unacknowledged ClcClientCommand in every message, on the acks
	// carrier the ClcMessages blocks. AckBitsUp counts the acks
	// carrier's packet acks (ClcAck), which every message of it starts
	// with. Both are counted as the messages are written, before
	// cl_packetloss; ReliableBytesUp and AckBytesUp give them in bytes.
	ReliableBitsUp, AckBitsUp uint64

	UsercmdPackets  uint64
	Usercmds        uint64 // usercmds written, duplicates included
	UsercmdsSkipped uint64 // packets that could not carry every command since the last
	NoDeltaRequests uint64 // usercmd packets asking for a full snapshot

	Frames             uint64
	FramesExtrapolated uint64 // active frames that reached the newest snapshot

	TimeResets      uint64 // time-sync corrections by reset
	TimeFastAdjusts uint64 // and by halving
	TimeJumpsBack   uint64 // render time jumps back after a stall (JumpBackTime)

	PingSum, PingCount uint64 // ms, over the snapshots that measured one

	// JitterSum adds up the snapshots' jitter samples, JitterSamples
	// counts them (see NetGraph.Jitter for the definition).
	JitterSum     time.Duration
	JitterSamples uint64

	Malformed    uint64 // messages or packets dropped as malformed
	Foreign      uint64 // packets from another address, or unexpected
	InboxDropped uint64 // packets dropped because Frame fell behind
	// HandshakeRefused counts challengeResponse and connectResponse
	// packets from the server's address that did not answer the
	// client's own request: a challengeResponse without the client
	// challenge of the getchallenge being sent, a connectResponse
	// without the challenge of the connect being sent.
	HandshakeRefused uint64
}

// PingAvg returns the mean ping in milliseconds, 0 if none was measured.
func (s *Stats) PingAvg() float64 {
	if s.PingCount == 0 {
		return 0
	}
	return float64(s.PingSum) / float64(s.PingCount)
}

// JitterAvg returns the mean snapshot jitter in milliseconds (see
// NetGraph.Jitter), 0 if none was measured.
func (s *Stats) JitterAvg() float64 {
	if s.JitterSamples == 0 {
		return 0
	}
	return float64(s.JitterSum) / float64(s.JitterSamples) / float64(time.Millisecond)
}

// LossPercent returns the server messages lost on the way as a
// percentage of those sent (delivered plus lost), 0 with no messages.
func (s *Stats) LossPercent() float64 {
	if s.Messages+s.SnapshotsDropped == 0 {
		return 0
	}
	return 100 * float64(s.SnapshotsDropped) / float64(s.Messages+s.SnapshotsDropped)
}

// ReliableBytesUp returns ReliableBitsUp in bytes.
func (s *Stats) ReliableBytesUp() uint64 { return s.ReliableBitsUp / 8 }

// AckBytesUp returns AckBitsUp in bytes.
func (s *Stats) AckBytesUp() uint64 { return s.AckBitsUp / 8 }

// Stats returns a copy of the counters.
func (c *Client) Stats() Stats {
	s := c.stats
	s.InboxDropped = c.inboxDrop.Load()
	return s
}

// FieldStats returns the engine's delta-field counters since New: the
// player and entity states it decoded (snapshots and gamestate
// baselines) and the usercmds it encoded. Read them with the tables'
// Stats (bg.PlayerStateTable.Stats). They are this engine's alone — an
// embedded server and other clients in the process count in their own
// — and are updated by Frame: read them on the goroutine that calls it.
func (c *Client) FieldStats() *msg.FieldStats { return &c.fields }

package headless

import (
	"slices"
	"time"

	"tremor/client"
)

// ClientReport is what one client did. Byte and packet counts are UDP
// payloads (no IP or UDP headers); up counts what the client sent before
// its own simulated losses. Prediction counts come from cgame.
type ClientReport struct {
	Client int    `json:"client"`
	Name   string `json:"name"`
	// Connected: the client got into the game.
	Connected        bool   `json:"connected"`
	FinalState       string `json:"final_state"`
	DisconnectReason string `json:"disconnect_reason"`
	// DroppedBy is "user" (the run ended), "server" (told to go) or
	// "error" (timeout, refused, broken).
	DroppedBy string `json:"dropped_by"`
	// Failed: never connected, or dropped without being told to go.
	Failed    bool    `json:"failed"`
	DurationS float64 `json:"duration_s"`

	Counts

	// PredictionErrorMax (pixels) is the largest prediction error, miss
	// or correction.
	PredictionErrorMax float64 `json:"prediction_error_max"`
	PingMsAvg          float64 `json:"ping_ms_avg"`
	// JitterMs is the mean snapshot jitter: |arrival gap - server time
	// gap| of consecutive snapshots (client.NetGraph.Jitter), in ms.
	JitterMs float64 `json:"jitter_ms"`
	// LossPct is the server messages lost on the way, in percent of
	// those sent (snapshots_dropped over messages delivered plus lost).
	LossPct float64 `json:"loss_pct"`
	// TimeNudgeMs is the interpolation delay in force at the end, ms:
	// cl_timeNudge, or with AutoNudge the one cl_autoNudge chose.
	TimeNudgeMs int32 `json:"time_nudge_ms"`
	AutoNudge   bool  `json:"auto_nudge"`
	// Reliable is the carrier of the reliable commands the connection
	// ended on: "q3" (the rings) or "acks" (messages by id over packet
	// acks). On acks, AckRTTMs is the packet acks' smoothed round trip,
	// UpstreamLossPct the client's packets the server did not receive as
	// their acks tell, and CommandsSent/CommandResends the client
	// commands' first sends and resends.
	Reliable        string  `json:"reliable"`
	AckRTTMs        float64 `json:"ack_rtt_ms,omitempty"`
	UpstreamLossPct float64 `json:"upstream_loss_pct,omitempty"`
	CommandsSent    uint64  `json:"commands_sent,omitempty"`
	CommandResends  uint64  `json:"command_resends,omitempty"`
	// ChatDelay is the delivery delay of the other clients' chat lines
	// this client received: from the moment the sender queued the line
	// (AddReliableCommand) to the moment this client ran the server's
	// chat command, each line counted once.
	ChatDelay

	// FrameSync is the client's frame-sync counters, with a server in
	// sv_netmodel framesync (docs/framesync.md); nil with snapshots.
	FrameSync *FrameSyncReport `json:"framesync,omitempty"`

	// FirstDivergence describes the first snapshot whose state hash
	// differed from the server's (entity and field with
	// sv_hashSnapshots 2); empty without a divergence.
	FirstDivergence string `json:"first_divergence,omitempty"`
}

// Counts are the counters a report gives per client and sums into its
// totals.
type Counts struct {
	Snapshots            uint64 `json:"snapshots"`
	SnapshotsFull        uint64 `json:"snapshots_full"`
	SnapshotsRateDelayed uint64 `json:"snapshots_rate_delayed"`
	SnapshotsDropped     uint64 `json:"snapshots_dropped"`
	SnapshotsInvalid     uint64 `json:"snapshots_invalid"`
	BytesDown            uint64 `json:"bytes_down"`
	BytesUp              uint64 `json:"bytes_up"`
	PacketsDown          uint64 `json:"packets_down"`
	PacketsUp            uint64 `json:"packets_up"`
	ServerCommands       uint64 `json:"server_commands"`
	ServerCommandGaps    uint64 `json:"server_command_gaps"`
	Gamestates           uint64 `json:"gamestates"`

	ChatSent       int `json:"chat_sent"`
	ChatReceived   int `json:"chat_received"`
	ChatMissing    int `json:"chat_missing"`
	ChatDuplicated int `json:"chat_duplicated"`
	ChatOutOfOrder int `json:"chat_out_of_order"`
	ChatRefused    int `json:"chat_refused"`

	// ReliableBytesUp is what the client commands cost in the client's
	// messages, every copy and resend included: on the rings every
	// unacknowledged command in every message, on the acks carrier the
	// message blocks. AckBytesUp is the acks carrier's packet acks.
	// Both are coded bytes counted as the messages were written
	// (client.Stats.ReliableBitsUp, AckBitsUp).
	ReliableBytesUp uint64 `json:"reliable_bytes_up"`
	AckBytesUp      uint64 `json:"ack_bytes_up"`

	// PredictionMisses counts mispredictions of the movement code: a new
	// prediction that put the player elsewhere than the previous one for
	// the same command, with nothing from the server to explain it.
	// PredictionCorrections counts those the server explains (a hit, a
	// knockback, a death or respawn since the previous snapshot, or a
	// level change in the last second): no
	// client could have foreseen them.
	PredictionMisses      int    `json:"prediction_misses"`
	PredictionCorrections int    `json:"prediction_corrections"`
	Frames                uint64 `json:"frames"`
	FramesExtrapolated    uint64 `json:"frames_extrapolated"`

	// State hashes (a server with sv_hashSnapshots, docs/statehash.md):
	// those compared with the snapshot decoded, those with no valid
	// snapshot to compare, and the comparisons that failed — a
	// divergence of the snapshot codec, which should never happen.
	HashesChecked   uint64 `json:"hashes_checked"`
	HashesUnchecked uint64 `json:"hashes_unchecked"`
	HashDivergences uint64 `json:"hash_divergences"`
}

// add adds o's counters to c's.
func (c *Counts) add(o *Counts) {
	c.Snapshots += o.Snapshots
	c.SnapshotsFull += o.SnapshotsFull
	c.SnapshotsRateDelayed += o.SnapshotsRateDelayed
	c.SnapshotsDropped += o.SnapshotsDropped
	c.SnapshotsInvalid += o.SnapshotsInvalid
	c.BytesDown += o.BytesDown
	c.BytesUp += o.BytesUp
	c.PacketsDown += o.PacketsDown
	c.PacketsUp += o.PacketsUp
	c.ServerCommands += o.ServerCommands
	c.ServerCommandGaps += o.ServerCommandGaps
	c.Gamestates += o.Gamestates
	c.ChatSent += o.ChatSent
	c.ChatReceived += o.ChatReceived
	c.ChatMissing += o.ChatMissing
	c.ChatDuplicated += o.ChatDuplicated
	c.ChatOutOfOrder += o.ChatOutOfOrder
	c.ChatRefused += o.ChatRefused
	c.ReliableBytesUp += o.ReliableBytesUp
	c.AckBytesUp += o.AckBytesUp
	c.PredictionMisses += o.PredictionMisses
	c.PredictionCorrections += o.PredictionCorrections
	c.Frames += o.Frames
	c.FramesExtrapolated += o.FramesExtrapolated
	c.HashesChecked += o.HashesChecked
	c.HashesUnchecked += o.HashesUnchecked
	c.HashDivergences += o.HashDivergences
}

// FrameSyncReport is what one client's rollback machine did
// (client.FrameSyncStats).
type FrameSyncReport struct {
	First     int32 `json:"first"`     // the frame of its first whole state
	Current   int32 `json:"current"`   // the frame its game was at
	Confirmed int32 `json:"confirmed"` // the last frame confirmed by the server
	Ahead     int32 `json:"ahead"`     // frames predicted past it at the end
	Lead      int   `json:"lead"`      // the server's last input lead, frames
	Predicted int   `json:"predicted"` // frames run ahead of their confirmation
	Rollbacks int   `json:"rollbacks"`
	// Resimulated counts the frames rollbacks ran again; ResimMean and
	// ResimMax are per rollback.
	Resimulated int     `json:"resimulated"`
	ResimMean   float64 `json:"resim_mean"`
	ResimMax    int     `json:"resim_max"`
	Stalls      int     `json:"stalls"`
	Resyncs     int     `json:"resyncs"`
	HashChecks  int     `json:"hash_checks"`
	Mismatches  int     `json:"mismatches"`
	// Desync names the first difference found at a mismatch ("" none).
	Desync        string `json:"desync,omitempty"`
	FrameMessages int    `json:"frame_messages"`
	WholeStates   int    `json:"whole_states"`
	Requests      int    `json:"requests"`
	ClockJumps    int    `json:"clock_jumps"`
}

// frameSyncReport converts a client's frame-sync counters.
func frameSyncReport(st client.FrameSyncStats) *FrameSyncReport {
	r := &FrameSyncReport{
		First: st.FirstFrame, Current: st.Current, Confirmed: st.Confirmed, Ahead: st.Ahead, Lead: st.Lead,
		Predicted: st.Predicted, Rollbacks: st.Rollbacks, Resimulated: st.Resimulated,
		ResimMax: st.MaxResimulated, Stalls: st.Stalls, Resyncs: st.Resyncs,
		HashChecks: st.HashChecks, Mismatches: st.Mismatches, Desync: st.Diff,
		FrameMessages: st.FrameMessages, WholeStates: st.WholeStates, Requests: st.Requests,
		ClockJumps: st.ClockJumps,
	}
	if st.Rollbacks > 0 {
		r.ResimMean = float64(st.Resimulated) / float64(st.Rollbacks)
	}
	return r
}

// ChatDelay summarizes chat delivery delays in milliseconds, by nearest
// rank; zero without a line received.
type ChatDelay struct {
	ChatDelays      int     `json:"chat_delays"` // lines measured
	ChatDelayP50Ms  float64 `json:"chat_delay_p50_ms"`
	ChatDelayP99Ms  float64 `json:"chat_delay_p99_ms"`
	ChatDelayMaxMs  float64 `json:"chat_delay_max_ms"`
	ChatDelayMeanMs float64 `json:"chat_delay_mean_ms"`
}

// chatDelay summarizes delays, which it sorts.
func chatDelay(delays []time.Duration) ChatDelay {
	n := len(delays)
	if n == 0 {
		return ChatDelay{}
	}
	slices.Sort(delays)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rank := func(p int) time.Duration { return delays[max(0, (p*n+99)/100-1)] }
	var sum time.Duration
	for _, d := range delays {
		sum += d
	}
	return ChatDelay{
		ChatDelays:      n,
		ChatDelayP50Ms:  ms(rank(50)),
		ChatDelayP99Ms:  ms(rank(99)),
		ChatDelayMaxMs:  ms(delays[n-1]),
		ChatDelayMeanMs: ms(sum) / float64(n),
	}
}

// Totals sum the clients' reports; ping and jitter are the means of the
// clients' means, loss_pct the share of all the clients' server messages
// lost, prediction_error_max the largest, duration_s the run's, the
// chat delays those of every line every client received.
type Totals struct {
	Clients           int            `json:"clients"`
	Connected         int            `json:"connected"`
	Failed            int            `json:"failed"`
	FinalStates       map[string]int `json:"final_states"`
	DisconnectReasons map[string]int `json:"disconnect_reasons"`
	DurationS         float64        `json:"duration_s"`

	Counts

	PredictionErrorMax float64 `json:"prediction_error_max"`
	PingMsAvg          float64 `json:"ping_ms_avg"`
	JitterMs           float64 `json:"jitter_ms"`
	LossPct            float64 `json:"loss_pct"`
	ChatDelay
}

// Report is the result of a run.
type Report struct {
	Server  string         `json:"server"`
	Clients []ClientReport `json:"clients"`
	Totals  Totals         `json:"totals"`
}

// Failed reports whether a client failed to connect or was dropped
// without being told to go.
func (r *Report) Failed() bool { return r.Totals.Failed > 0 }

// report builds the report once every client has stopped.
func (r *Runner) report() *Report {
	rep := &Report{Server: r.cfg.Server.String()}
	t := &rep.Totals
	t.FinalStates = map[string]int{}
	t.DisconnectReasons = map[string]int{}
	t.DurationS = r.now().Seconds()
	sent := make([]int, len(r.clients))
	for i, p := range r.clients {
		sent[i] = p.chatSent
	}
	pings, jitters := 0, 0
	var delays []time.Duration
	var messages, lost uint64
	for _, p := range r.clients {
		st := p.c.Stats()
		kind, reason := p.c.Dropped()
		cr := ClientReport{
			Client:             p.i,
			Name:               p.name,
			Connected:          p.c.EverActive(),
			FinalState:         p.c.State().String(),
			DisconnectReason:   reason,
			DroppedBy:          kind.String(),
			DurationS:          (p.stopped - p.started).Seconds(),
			PredictionErrorMax: p.cgStats.errorMax,
			PingMsAvg:          st.PingAvg(),
			JitterMs:           st.JitterAvg(),
			LossPct:            st.LossPercent(),
			TimeNudgeMs:        p.c.TimeNudge(),
			AutoNudge:          p.c.AutoNudge().On,
			Reliable:           "q3",
			Counts: Counts{
				Snapshots:             st.Snapshots,
				SnapshotsFull:         st.SnapshotsFull,
				SnapshotsRateDelayed:  st.SnapshotsRateDelayed,
				SnapshotsDropped:      st.SnapshotsDropped,
				SnapshotsInvalid:      st.SnapshotsInvalid,
				BytesDown:             st.BytesDown,
				BytesUp:               st.BytesUp,
				PacketsDown:           st.PacketsDown,
				PacketsUp:             st.PacketsUp,
				ServerCommands:        st.ServerCommands,
				ServerCommandGaps:     st.ServerCommandGaps,
				Gamestates:            st.Gamestates,
				ChatSent:              p.chatSent,
				ChatRefused:           p.chatRefused,
				ReliableBytesUp:       st.ReliableBytesUp(),
				AckBytesUp:            st.AckBytesUp(),
				PredictionMisses:      p.cgStats.misses - p.cgStats.settled,
				PredictionCorrections: p.cgStats.corrections + p.cgStats.settled,
				Frames:                st.Frames,
				FramesExtrapolated:    st.FramesExtrapolated,
			},
		}
		if a := p.c.Acks(); a.On {
			cr.Reliable = "acks"
			cr.AckRTTMs, cr.UpstreamLossPct = a.RTT, 100*a.UpstreamLoss
			cr.CommandsSent, cr.CommandResends = a.Messages.FirstSends, a.Messages.Resends
		}
		if p.cgStats.frames > 0 {
			cr.FramesExtrapolated = uint64(p.cgStats.extrapolated)
		}
		cr.Failed = !cr.Connected || kind == client.DropError
		if fs, ok := p.c.FrameSyncStats(); ok {
			cr.FrameSync = frameSyncReport(fs)
		}
		hs := p.c.HashStats()
		cr.HashesChecked, cr.HashesUnchecked, cr.HashDivergences = hs.Checked, hs.Unchecked, hs.Divergences
		if hs.Divergences > 0 {
			cr.FirstDivergence = hs.First.String()
		}
		for from := range p.recv {
			if from == p.i {
				continue
			}
			f := &p.recv[from]
			cr.ChatReceived += f.distinct + f.dup
			cr.ChatDuplicated += f.dup
			cr.ChatOutOfOrder += f.ooo
			cr.ChatMissing += max(0, sent[from]-f.distinct)
		}
		delays = append(delays, p.chatDelays...)
		cr.ChatDelay = chatDelay(slices.Clone(p.chatDelays))
		rep.Clients = append(rep.Clients, cr)

		t.Clients++
		if cr.Connected {
			t.Connected++
		}
		if cr.Failed {
			t.Failed++
		}
		t.FinalStates[cr.FinalState]++
		if cr.DisconnectReason != "" {
			t.DisconnectReasons[cr.DisconnectReason]++
		}
		t.Counts.add(&cr.Counts)
		t.PredictionErrorMax = max(t.PredictionErrorMax, cr.PredictionErrorMax)
		if st.PingCount > 0 {
			t.PingMsAvg += cr.PingMsAvg
			pings++
		}
		if st.JitterSamples > 0 {
			t.JitterMs += cr.JitterMs
			jitters++
		}
		messages += st.Messages
		lost += st.SnapshotsDropped
	}
	if pings > 0 {
		t.PingMsAvg /= float64(pings)
	}
	if jitters > 0 {
		t.JitterMs /= float64(jitters)
	}
	if messages+lost > 0 {
		t.LossPct = 100 * float64(lost) / float64(messages+lost)
	}
	t.ChatDelay = chatDelay(delays)
	return rep
}

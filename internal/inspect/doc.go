// Package inspect is Tremor's packet inspector: a passive decoder of
// everything on the wire between clients and a server, bit by bit.
//
// An [Inspector] is fed packets as a proxy between the two ends sees
// them ([Inspector.Feed]) and returns, per packet, a [Message]: the
// connectionless command (getchallenge, challengeResponse, connect,
// getinfo, infoResponse, ...), or the netchan header (sequence, qport,
// fragment start and length) and, once a message is complete
// (fragments reassembled as netchan.Chan.Process does), its operations
// with the bits each took: the reliable acknowledge, server commands, the
// gamestate (every configstring and baseline), snapshots (delta base,
// flags, server time, every player-state field and every entity changed,
// added or removed, with its fields), and in the other direction the
// client header, client commands and usercmd packets.
//
// To do this without either end's help it keeps, per client, what each
// end keeps to read the other: the challenge (from challengeResponse and
// connect), the reliable command rings both ways (their texts key the
// scrambling and the usercmds), the gamestate (baselines, checksum feed,
// server id, sv_scramble) and the last PacketBackup snapshots as delta
// bases, by message number, as the client does. Scrambled bodies are
// unscrambled with the keys both ends derive (netchan.ServerKey,
// netchan.ClientKey); usercmds with proto.UsercmdKey.
//
// A client message is read with the settings of the gamestate whose
// server id its header carries, not the newest one: after a map change
// or map_restart a client goes on writing under the old gamestate, its
// scramble setting and checksum feed, until the new one reaches it, so
// the inspector keeps the settings of the last few server ids. What the
// inspector did not see it does not guess: a message keyed by a
// gamestate, a reliable command or a challenge it missed is reported as
// [ErrCannotDecode] (Message.CannotDecode), and a snapshot after a
// gamestate it missed (its SnapServerCount flag changed) is read but not
// valid, as one from a lost delta base.
//
// It parses nothing itself: both directions are read by
// proto.ParseServerMessage and proto.ParseClientMessage, the client
// engine's readers, with the inspector as their handler (deciding, from
// what it kept, as the receiving end would) and their observer (the bits
// of every part read become Ops and Fields).
//
// Deltas are read by the bg field tables' own readers, once: their
// field trace (msg.Reader.SetFieldTrace) reports each changed field and
// its value, and where the reader stands after it gives its bits. The
// field order and increment widths come from the tables too
// (msg.Table.Fields), so a reordered or re-tuned table is followed
// without a change here.
//
// [Proxy] runs an Inspector inside a UDP proxy (cmd/inspect). Everything
// here reads untrusted bytes: every read is bounded, errors are reported
// in Message.Err, and nothing panics (FuzzFeed).
//
// Quake III had cl_shownet, which printed the operations a client parsed;
// this goes further: both directions, every field, every bit, from the
// outside.
package inspect

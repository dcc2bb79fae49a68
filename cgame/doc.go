// Package cgame is the client game: what Quake III's cgame module did
// between receiving snapshots and drawing them (cg_snapshot.c,
// cg_predict.c, cg_ents.c, cg_event.c, cg_servercmds.c). It is
// windowless: it turns the snapshots and usercmds the client engine holds
// into plain data — the predicted local player, every visible entity's
// position for the render time, the events to play, chat, scores,
// counters and lagometer samples — and leaves drawing to ui/draw.
//
// The client engine (client) implements [Client] and calls
// [CGame.Frame] once per client frame, after it has created the frame's
// usercmd. One frame, step by step (Quake III's CG_DrawActiveFrame):
//
//  1. The render time is the engine's estimate of the server time
//     (Client.ServerTime, already shifted by cl_timeNudge or by the
//     delay cl_autoNudge chose); it never runs backwards.
//  2. processSnapshots (CG_ProcessSnapshots) keeps Snap and NextSnap so
//     that Snap.ServerTime <= Time < NextSnap.ServerTime, reading the
//     engine's snapshots in order, skipping dropped, duplicated, stale and
//     inactive ones, and running server commands and entity events as each
//     snapshot becomes current.
//  3. predictPlayerState (CG_PredictPlayerState) replays every usercmd
//     newer than the latest snapshot's player state through bg.Pmove,
//     detects mispredictions and keeps the decaying error vector; with
//     cl_nopredict it interpolates the snapshots' player states instead.
//  4. addPacketEntities (CG_AddPacketEntities) places every other entity:
//     interpolated between Snap and NextSnap, evaluated on its trajectory,
//     or extrapolated when NextSnap is missing.
//
// docs/cgame.md describes the rules in full.
package cgame

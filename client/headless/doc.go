// Package headless runs windowless Tremor clients against a server: each
// one a real client engine (package client) with prediction (package
// cgame), playing with a bot's input (package game/bot) at a real frame
// rate, chatting at a fixed interval, and counting everything. Tests,
// soak runs, load runs and cmd/headless drive servers through it.
//
// Each client's bot thinks every bot.FrameMsec (the step its movement
// scripts are made of) on a bot.View built from the newest snapshot and
// the predicted player state; the client sends the bot's latest decision
// every frame.
//
// Chat lines are "client <i> line <n>", n counting from 1 for each
// client. They start once every client of the run is in the game (or has
// failed to get there) and stop a second before the end, so that every
// line can reach every other client: the report counts, per receiver,
// the lines of the others that arrived, and those missing, repeated or out
// of order (all zero when reliability holds), and the delay of each line
// from the moment its sender queued it to the moment the receiver ran it
// (p50, p99, max and mean: the runner holds every client, so one clock
// times both ends).
//
// The report has, per client and in total, the fields cmd/headless
// prints; Report.Failed tells whether a client failed to connect or was
// dropped without being told to go.
package headless

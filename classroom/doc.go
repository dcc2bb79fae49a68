// Package classroom is the model behind the classroom view
// (docs/classroom.md): one embedded server with bots and two players,
// each with its own client engine and cgame, each talking to the server
// over its own loopback netchan pair through its own simulated link
// (net/netsim's Link: delay, jitter, loss, duplication and reordering,
// each way, changed live), all on one virtual clock that can run slowed
// down (0.05× to 1×) or paused, so a class can follow a single packet.
//
// Every packet either end sends is logged as an Event: who sent it to
// whom, what it carried (usercmds, a delta or full snapshot, reliable
// commands, a fragment, a handshake packet), its size, when it left and
// when each copy arrives, or that it was lost. The kind comes from
// decoding the packet with internal/inspect, the project's one packet
// decoder, which also gives the field-by-field text `inspect` prints.
//
// Each player pane, and the server, has a console table of its own:
// `p1 cl_nopredict 1`, `p2 lag 200`, `sv sv_fps 10` aim a line at one of
// them (AddCommands). Nothing here opens a socket or a file, and nothing
// draws: ui/draw paints a Model, cmd/client drives it once per frame, and
// the tests drive it without a window.
package classroom

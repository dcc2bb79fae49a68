// Package hostile holds the scenario tests of issues 11 and 23, run with
// the real binaries over UDP on 127.0.0.1: cmd/server, cmd/headless and
// cmd/hostile, built with CGO_ENABLED=0 into the test's temporary
// directory, each scenario on a fresh server.
//
// TestHostileBinaries (make hostile) checks that a server
//
//   - keeps 64 headless clients joining a sv_maxclients 64 server at once,
//     and through a map change: none dropped, no server-command gap;
//   - outlasts a client that sends 300 userinfo renames in one message
//     while 5 headless clients play (with sv_floodProtect at its default
//     and at 0): the 5 stay and get every chat line, the offender is
//     throttled or dropped;
//   - sends back no more bytes than it receives under a getstatus flood
//     from 64 source ports, and lets a client join during it;
//   - keeps a join working through 1100 getchallenge packets from fresh
//     ports sent between its getchallenge and its connect;
//   - refuses rcon exec of files outside its directory (/etc/passwd);
//   - keeps answering the right rcon password from 127.0.0.1 through a
//     wrong-password flood from 127.0.0.2-127.0.0.250.
//
// TestHostileServer runs issue 23's attacks from the other side: the
// real headless client (no -duration: only the server can end its run)
// joins `hostile server`, and
//
//   - leaves on its own, with a reason naming the server's time, when
//     the times start past the limit near 2^31 ms (timewrap), run up past
//     proto.MaxServerTime (timelimit) or run backwards (timeback); the
//     time from the first bad snapshot to its exit is logged, and a run
//     still going after 10 s is killed and fails;
//   - writes no control character but newline and tab on stderr, in its
//     report or in its event log (nor in their decoded JSON strings)
//     when every text the server sends carries terminal escapes, and
//     still shows the disconnect reason, made visible (escape,
//     escapeprint);
//   - after downloading the server's own arena1, leaves a local game's
//     arena1 (the real server with sv_mapdir its map directory) the
//     built-in one, keeps the copy in a folder of its own under its name
//     and checksum, and uses it without downloading again when it joins
//     that server again (shadowmap).
//
// TestHostileServerText runs cmd/headless against a server whose prints,
// chat and disconnect reason carry terminal escape sequences (issue 23):
// its standard error, report and event log hold no control character.
//
// TestCrowd (make crowd) is the long run, not for CI: 64 clients playing
// for -crowd (10 minutes in make crowd) through two map changes.
//
// Flags after -args: -serverbin and -headlessbin run given binaries
// instead of building them (to compare builds), -serverlog prints every
// server log.
//
// The package has no code of its own; everything is in its tests.
package hostile

// Package console implements Quake III's console variables and command
// system (cvar.c and cmd.c): a [Table] of cvars declared from one
// declarative list, the console commands, the command buffer that runs
// scripts and config files, the Quake-style command line and the hook that
// persists archived cvars.
//
// # Cvars
//
// A program declares its cvars in one list of [Decl] values, with their
// defaults, ranges, flags and help text, and registers it once:
//
//	var cvars = []console.Decl{
//		{Name: "sv_fps", Default: "20", Flags: console.Integral, Min: 1, Max: 125,
//			Help: "server frames per second"},
//		{Name: "cl_nopredict", Default: "0", Aliases: []string{"cg_nopredict"},
//			Help: "turn off client-side prediction"},
//	}
//	t := console.NewTable()
//	t.Register(cvars...)
//	fps := t.Get("sv_fps")
//
// Names are compared ignoring ASCII case, as Quake III's were. A consumer
// keeps the *[Cvar] and reads it each frame: [Cvar.Int], [Cvar.Float],
// [Cvar.Bool] and [Cvar.Value] are single atomic loads of a value parsed
// once when it was set, so the network goroutine may read while the console
// goroutine writes. Changes reach consumers in three ways: the
// [Cvar.ModificationCount] counter (Quake III's modificationCount), the
// [Cvar.OnChange] callbacks, and [Table.TakeModifiedFlags], which tells the
// server that some serverinfo or systeminfo cvar changed since it last
// built the info strings (Quake III's cvar_modifiedFlags).
//
// Setting a value goes through the checks of the cvar's [Flags]: ReadOnly
// and Init cvars refuse the console, Cheat cvars refuse it unless cheats
// are on, Latch cvars keep the new value aside until [Table.ApplyLatched]
// (the next map), numbers are clamped to the declared range with a printed
// note, and info cvars refuse the bytes an info string cannot carry.
// Setting an undeclared name creates a user cvar, as in Quake III, so that
// scripts can keep their own variables for vstr.
//
// # Cvars bound to variables
//
// A package whose settings are a Go struct binds its cvars to the fields,
// as package flag's IntVar binds a flag: [Table.Bind] returns a [Vars]
// group with an apply function, and [Vars.IntVar], [Vars.Int32Var],
// [Vars.BoolVar] and [Vars.StringVar] declare a cvar and tie it to a
// field. Every change, through any path, is stored in the field at once
// on the goroutine that made it, then apply runs:
//
//	v := t.Bind(s.applyCvar)
//	v.IntVar(&cfg.FPS, "sv_fps", 20, 1, 250, console.Remote, "server frames per second")
//
// [Vars.Float64Var] binds a fractional one. [Vars.OnChange] derives a
// group whose changes also run a function of the program's, so that what
// a change does is declared beside the binding; [Vars.Aliases] gives the
// cvar bound next further names. [Cvar.Bound] tells whether a cvar is
// bound, for a test that a program's table leaves none unbound.
//
// [Vars.Unbind] releases them (they stay declared with their values) so
// that another struct can bind them later: the server engine binds its
// Config in the table of the program it runs in, so there is one console
// per process.
//
// # Remote text
//
// [Table.ExecuteRemote] runs text that came from the network (the
// server's rcon) to its end in a command buffer of its own, printing to a
// writer of the caller's. It may run only commands added with
// [Table.AddRemoteCommand] and the built-ins, and set only cvars flagged
// [Remote] and user cvars.
//
// # Commands and the command buffer
//
// [Table.AddCommand] adds a command; its handler receives the tokenized
// line (net/oob's tokenizer, Quake III's Cmd_TokenizeString). Text reaches
// the commands through the command buffer (Quake III's Cbuf):
// [Table.Append] and [Table.Insert] queue it, [Table.Execute], called once
// per frame, runs it line by line. Lines end at a newline or at a ';'
// outside double quotes and comments. The first token names a command, or
// a cvar: a bare cvar name prints it, a cvar name followed by a value sets
// it. The built-in commands are set, seta, sets, setu, toggle, reset,
// cvarlist, cmdlist, echo, vstr, exec, wait and help.
//
// Scripts cannot hang the program: vstr and exec nest at most [MaxNesting]
// levels deep, and one call of Execute runs at most
// [MaxCommandsPerExecute] lines before it discards the buffer as a runaway
// script. A loop that waits ("echo tick; wait; vstr loop") keeps working.
//
// # Command line
//
// [ParseCommandLine] turns os.Args in the form "+set name value +map
// arena1" into command lines; [SplitCommandLine] separates the set lines,
// which Quake III ran before initialising, from the rest.
//
// # The drop-down console and saved settings
//
// A [Scrollback] is the console's text (Quake III's con.text): a bounded
// ring of wrapped lines that the table's output and the embedded server's
// log write into from any goroutine, with scrolling and the "notify"
// lines shown while the console is closed. A [Prompt] is its input line
// (field_t): editing, history, and Tab completion of commands, cvars and
// registered arguments. The window draws both (ui/draw).
//
// [Table.SaveArchived] and [Table.LoadArchived] keep the archived cvars
// in a [Store]; [EncodeConfig] and [DecodeConfig] are the file format,
// Quake III's `seta NAME "VALUE"` lines.
//
// # Concurrency
//
// Cvar reads are safe from any goroutine. Table methods that look up, set,
// register or queue text (Get, Set, Register, Append, Insert, Printf, ...)
// are safe from any goroutine too. The command handlers run on the
// goroutine that calls [Table.Execute], [Table.ExecuteString],
// [Table.ExecuteRemote] or [Table.ExecuteCommandLine]; call those from one
// goroutine, the owner's main loop. OnChange callbacks, and the stores and
// apply functions of bound cvars, run on the goroutine that set the value.
package console

// Package keys names the keys of the keyboard and mouse and binds console
// commands to them, as Quake III's keys.c did. It knows no window system:
// the program translates its window's key events into [KeyNum] values
// and passes them to [Binds.KeyEvent], which queues the bound command on
// a console.Table's command buffer.
//
// # Key names
//
// Every key has one lower-case name (see [Names]): letters, digits and
// punctuation are themselves ("a", "5", "[", "`"), except ';', which
// would end a console command and is named "semicolon". The others are
// words in Quake III's spelling: "space", "tab", "enter", "escape",
// "backspace", "uparrow", "downarrow", "leftarrow", "rightarrow",
// "shift", "ctrl", "alt", "command", "capslock", "pause", "ins", "del",
// "home", "end", "pgup", "pgdn", "f1" to "f15", the keypad keys "kp_home"
// to "kp_equals", the mouse buttons "mouse1" (left), "mouse2" (right),
// "mouse3" (middle), "mouse4", "mouse5", and the wheel "mwheelup",
// "mwheeldown". [Lookup] ignores case, so Quake III configs that write
// "MOUSE1" or "UPARROW" still load.
//
// # Bindings and buttons
//
// The console commands are Quake III's: bind KEY [COMMAND] sets or
// prints a binding, unbind KEY, unbindall, bindlist. A binding is one or
// more commands separated by ';'. On a key press each of them is queued;
// a command that starts with '+' is a button (see cmd/client's input
// package): it gets the key number and the event time as two more
// arguments, "+attack 205 51230", and on release its '-' twin is queued
// with the same two arguments, "-attack 205 51274". The button uses the
// key number to tell two keys holding it apart and the times to weigh
// the fraction of a frame the key was down. The release always pairs
// with the press, even if the key was rebound while held. A press of a
// key that is already down (the system's key repeat) queues the
// non-button commands again but never a '+' command.
//
// # Keys that always work
//
// Escape and the console key (` and ~) run their bindings like any key
// ("togglemenu" and "toggleconsole" by default), but when unbound they
// run [MenuCommand] and [ConsoleCommand] anyway, and Shift+Escape always
// runs [ConsoleCommand] whatever Escape is bound to. Neither unbindall
// nor a stray bind can lock the player out of the console and the menu.
// Their presses never repeat. The program registers both commands.
//
// # Key catchers
//
// While the console, the chat field or a menu has the keyboard, the
// program gives it the presses itself (except Escape and the console
// key, which it passes to [Binds.KeyEvent]) but passes every release to
// KeyEvent, as Quake III did, so that a button pressed before the
// console opened does not stay held. When the window loses the keyboard
// it calls [Binds.ReleaseAll].
//
// # Persistence
//
// [Binds.WriteBinds] writes "unbindall" and a line bind KEY "COMMAND"
// for each bound key; executing the text (exec, or Table.Append then
// Execute) restores exactly those bindings. [Binds.SetDefaults] applies
// the [Defaults] table.
package keys

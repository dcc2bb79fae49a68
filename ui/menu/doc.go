// Package menu is the client's menu system without a window: the pages
// (main, in-game, play, join, settings, keys, and the server browser's
// "Find servers"), the selection, text fields
// and key capture, driven by abstract input and acting only through a
// [console.Table]. Every action is a cvar set with [console.Table.Set] or a
// command line queued with [console.Table.Append], so whatever the menu does
// can also be typed at the console or scripted with +commands. It is Quake
// III's ui module (ui_main.c, ui_shared.c) reduced to what Tremor needs.
//
// The settings page is a cvar editor, as the console's set is: each item
// names its cvar, and the model reads the value it shows from that cvar
// at each [Model.Layout], so a change made at the console shows at once.
// Items naming a cvar the table does not hold (s_volume, r_fullscreen
// before the program declares them) are hidden, not invented. The Join
// page starts from cl_lastServer's bound field (Config.LastServer).
//
// # Layout
//
// The model lays itself out: [Model.Layout] takes the screen size and
// returns a [View] with the panel, the title, one [Item] per visible row
// with its rectangles, and the hint line; on the browser page it has no
// Items but a [BrowserView] (tabs, header cells, rows of cells, buttons,
// a status line) in View.Browser. The drawer (package ui/draw,
// DrawMenu) only paints those rectangles, and [Model.HitTest],
// [Model.MouseMove] and [Model.Click] test the mouse against the last
// layout. The layout assumes a 7×13-pixel font drawn at [TextScale] for
// items and [TitleScale] for the title; it scrolls when the window is too
// short for a page. At a UI scale other than 1 ([Model.SetScale]) it
// lays the page out on a screen that much smaller and multiplies every
// rectangle by the scale, so that the hit tests match what is drawn.
//
// # Input
//
// The program forwards, while [Model.IsOpen]:
//   - every key press as [Model.Press] with its navigation meaning (Up,
//     Down, Left, Right, Enter, Back for Escape, Backspace; KeyNone for
//     any other key) and its bind name ("A", "SPACE", "MOUSE1"): the name
//     is what key capture binds;
//   - typed characters as [Model.Type];
//   - cursor motion as [Model.MouseMove] and left clicks as [Model.Click];
//   - Tab as Press(KeyTab, "TAB") and mouse wheel notches as
//     [Model.Wheel], which the browser page uses.
//
// On the browser page typed characters are shortcuts (R refresh, A
// favourite, S/O sort, F/E/I filters); docs/browser.md lists its keys.
// The page reads the program's [Browser] (a *browser.Browser, which the
// program drives with Frame every frame, menu open or not) and acts on it
// only through Refresh and the favourites; joining queues "connect ADDR"
// like the join page. [Model.OpenMainWithMessage] opens the main menu
// with the reason the player is back there (a kick, a failed connect).
//
// While the menu is closed it forwards only Escape (Press(KeyBack, ...)),
// which opens the in-game menu. [Model.SetInGame] tells the model each
// frame whether a match is being played.
//
// A Model is not safe for concurrent use: call it from the goroutine that
// runs Update and Draw.
package menu

// Package input turns key events into usercmds, as Quake III's
// cl_input.c did. Keys reach it as console commands queued by the key
// bindings (package ui/keys): "+moveleft 97 51230" when the A
// key goes down at 51230 ms, "-moveleft 97 51274" when it comes up. Each
// names a [Button]; [State.CreateCmd] reads the buttons once per frame.
// It knows no window system, so it is tested without a display.
//
// # Sub-frame key timing
//
// A button keeps the times its keys went down and up, so a frame's
// usercmd moves by the fraction of the frame the key was held
// ([Button.KeyState]): a key pressed a quarter into a frame moves at
// three quarters of full speed that frame, one released half-way at half
// speed. A command typed at the console without the two numbers counts
// from the last frame. The attack button goes into the usercmd if it
// was down at any moment of the frame, so a click shorter than a frame
// still fires.
//
// # Commands
//
//	+moveleft, +moveright   run (RightMove -127..127)
//	+moveup                 jump (UpMove > 0)
//	+movedown               drop through a platform (UpMove < 0)
//	+attack, +button0       fire (bg.ButtonAttack)
//	+button1                bg.ButtonTalk (the program also sets Talk)
//	+button2                bg.ButtonWalk
//	+scores                 show the scores while held
//	weapon N                choose weapon N (1 gauntlet … 5 railgun)
//	weapnext, weapprev      the next or previous weapon held
//
// Each '+' command has its '-' twin; both take the optional arguments KEY
// and TIME. A '-' command without KEY releases the button whatever keys
// hold it, to unstick it from the console.
package input

import (
	"strconv"

	"tremor/bg"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/ui/draw/view"
)

// MaxFrameMsec bounds the frame length that key fractions are measured
// against, so that after a hitch a key held throughout still counts
// whole (Quake III clamped frame_msec to 200).
const MaxFrameMsec = 200

// consoleKey stands for a press typed at the console, with no key.
const consoleKey = -1

// Button is a control that keys hold down (Quake III's kbutton_t). Two
// keys may hold it at once; it stays down until both let go. It keeps
// the time it went down and the milliseconds it was held before being
// released this frame, for [Button.KeyState], and a latch that remembers
// a press until the next usercmd reads it. The zero Button is up.
type Button struct {
	down       [2]int32 // keys holding it: 0 none, consoleKey
	downTime   int32    // when it went down, or the last frame it was counted to
	msec       int32    // held this frame before a release
	active     bool
	wasPressed bool
}

// Down holds the button with key at timeMs, the client's real time in
// milliseconds (IN_KeyDown); key 0 or less is the console. A second press
// by a key that already holds it (a key repeat) changes nothing. Down
// reports false, and ignores the press, when two other keys hold the
// button already.
func (b *Button) Down(key int32, timeMs int32) bool {
	if key <= 0 {
		key = consoleKey
	}
	switch key {
	case b.down[0], b.down[1]:
		return true
	}
	switch {
	case b.down[0] == 0:
		b.down[0] = key
	case b.down[1] == 0:
		b.down[1] = key
	default:
		return false
	}
	if b.active {
		return true // the other key holds it already
	}
	b.downTime = timeMs
	b.active = true
	b.wasPressed = true
	return true
}

// Up lets go of key's hold at timeMs (IN_KeyUp); the button goes up
// when no key holds it. Key 0 or less (the console) lets go of every
// hold. A release by a key that does not hold the button does nothing.
func (b *Button) Up(key int32, timeMs int32) {
	switch {
	case key <= 0:
		b.down = [2]int32{}
	case b.down[0] == key:
		b.down[0] = 0
	case b.down[1] == key:
		b.down[1] = 0
	default:
		return
	}
	if b.down[0] != 0 || b.down[1] != 0 || !b.active {
		return
	}
	b.active = false
	if d := timeMs - b.downTime; d > 0 {
		b.msec += d
	}
}

// Active reports whether the button is held down now.
func (b *Button) Active() bool { return b.active }

// KeyState returns the fraction of the frame (nowMs-frameMsec, nowMs]
// that the button was held down, from 0 to 1, and starts counting the
// next frame from nowMs (CL_KeyState). Call it once per frame.
func (b *Button) KeyState(nowMs, frameMsec int32) float64 {
	msec := b.msec
	b.msec = 0
	if b.active {
		if d := nowMs - b.downTime; d > 0 {
			msec += d
		}
		b.downTime = nowMs
	}
	switch {
	case msec <= 0:
		return 0
	case frameMsec <= 0 || msec >= frameMsec:
		return 1
	}
	return float64(msec) / float64(frameMsec)
}

// NumButtons is the number of usercmd buttons: State.Buttons[i] sets bit
// i of UserCmd.Buttons (bg.ButtonAttack, bg.ButtonTalk, bg.ButtonWalk).
const NumButtons = 3

// State is what input keeps between frames: the buttons (the kbuttons of
// cl_input.c) and the weapon and aim chosen. The zero State is ready;
// [State.AddCommands] connects it to the console. Its commands and
// CreateCmd run on the goroutine that runs the table's Execute.
type State struct {
	MoveLeft, MoveRight Button
	MoveUp, MoveDown    Button
	Scores              Button
	Buttons             [NumButtons]Button

	// Talk sets bg.ButtonTalk in every usercmd, so that others see a
	// chat icon: the program sets it while the console or the chat
	// field has the keyboard.
	Talk bool

	t           *console.Table
	frameTime   int32 // nowMs of the last CreateCmd
	weapon      int32 // weapon asked for, 0 for none yet
	weaponSteps int32 // weapnext minus weapprev since the last usercmd
	aim         int32
}

// AddCommands adds the button and weapon commands (see the package doc)
// to t.
func (in *State) AddCommands(t *console.Table) {
	in.t = t
	for _, c := range []struct {
		name, help string
		b          *Button
	}{
		{"moveleft", "run left", &in.MoveLeft},
		{"moveright", "run right", &in.MoveRight},
		{"moveup", "jump", &in.MoveUp},
		{"movedown", "drop through a platform", &in.MoveDown},
		{"attack", "fire", &in.Buttons[0]},
		{"button0", "fire", &in.Buttons[0]},
		{"button1", "talk icon", &in.Buttons[1]},
		{"button2", "walk", &in.Buttons[2]},
		{"scores", "show the scores", &in.Scores},
	} {
		b, name := c.b, c.name
		t.AddCommand("+"+name, "+"+name+" [key time]: "+c.help+" while held", func(a *cmdargs.Args) {
			key, ms := in.keyArgs(a)
			if !b.Down(key, ms) {
				t.Printf("three keys down for +%s\n", name)
			}
		})
		t.AddCommand("-"+name, "-"+name+" [key time]: release +"+name, func(a *cmdargs.Args) {
			key, ms := in.keyArgs(a)
			b.Up(key, ms)
		})
	}
	t.AddCommand("weapon", "weapon <n>: choose weapon n (1 gauntlet, 2 machinegun, 3 grenade launcher, 4 rocket launcher, 5 railgun)", in.weaponCommand)
	t.AddCommand("weapnext", "weapnext: choose the next weapon held", func(*cmdargs.Args) {
		in.weaponSteps = min(in.weaponSteps+1, bg.NumWeapons)
	})
	t.AddCommand("weapprev", "weapprev: choose the previous weapon held", func(*cmdargs.Args) {
		in.weaponSteps = max(in.weaponSteps-1, -bg.NumWeapons)
	})
}

// keyArgs reads the optional KEY and TIME arguments of a button command:
// no key is the console's, no time is the last frame's.
func (in *State) keyArgs(a *cmdargs.Args) (key, timeMs int32) {
	key, timeMs = consoleKey, in.frameTime
	if n, err := strconv.ParseInt(a.Argv(1), 10, 32); err == nil {
		key = int32(n)
	}
	if n, err := strconv.ParseInt(a.Argv(2), 10, 32); err == nil {
		timeMs = int32(n)
	}
	return key, timeMs
}

func (in *State) weaponCommand(a *cmdargs.Args) {
	n, err := strconv.Atoi(a.Argv(1))
	if a.Argc() != 2 || err != nil || n <= bg.WPNone || n >= bg.NumWeapons {
		in.t.Printf("usage: weapon <1-%d>\n", bg.NumWeapons-1)
		return
	}
	in.weapon = int32(n)
	in.weaponSteps = 0
}

// ShowScores reports whether +scores is held.
func (in *State) ShowScores() bool { return in.Scores.active }

// CreateCmd builds the usercmd of the frame that ends at nowMs, the
// client's real time in milliseconds, from the buttons and the commands
// run since the last call (CL_CreateCmd). The frame starts at the
// previous call, at most MaxFrameMsec earlier. aimX, aimY is the
// direction from the drawn local player to the cursor in screen pixels;
// (0, 0) keeps the last aim. ps is the predicted player state, whose
// weapons weapnext and weapprev choose from; nil before the game, when
// they are dropped. The engine sets ServerTime. CreateCmd allocates
// nothing.
func (in *State) CreateCmd(nowMs int32, aimX, aimY float64, ps *bg.PlayerState) bg.UserCmd {
	frameMsec := min(max(nowMs-in.frameTime, 1), MaxFrameMsec)
	in.frameTime = nowMs

	var cmd bg.UserCmd
	cmd.RightMove = move(in.MoveRight.KeyState(nowMs, frameMsec) - in.MoveLeft.KeyState(nowMs, frameMsec))
	cmd.UpMove = move(in.MoveUp.KeyState(nowMs, frameMsec) - in.MoveDown.KeyState(nowMs, frameMsec))
	for i := range in.Buttons {
		b := &in.Buttons[i]
		if b.active || b.wasPressed {
			cmd.Buttons |= 1 << i
		}
		b.wasPressed = false
	}
	if in.Talk {
		cmd.Buttons |= bg.ButtonTalk
	}

	if aimX != 0 || aimY != 0 {
		in.aim = view.AimAngle(aimX, aimY)
	}
	cmd.Aim = in.aim

	if in.weaponSteps != 0 && ps != nil {
		owned := ps.Stats[bg.StatWeapons]
		w := in.weapon
		if w <= bg.WPNone || w >= bg.NumWeapons || owned&(1<<w) == 0 {
			w = ps.Weapon
		}
		for ; in.weaponSteps > 0; in.weaponSteps-- {
			w = NextWeapon(owned, w, 1)
		}
		for ; in.weaponSteps < 0; in.weaponSteps++ {
			w = NextWeapon(owned, w, -1)
		}
		in.weapon = w
	}
	in.weaponSteps = 0
	cmd.Weapon = in.weapon
	return cmd
}

// move scales a fraction in [-1, 1] to a usercmd axis, truncating
// towards zero as Quake III's float-to-char conversion did.
func move(f float64) int32 {
	return min(max(int32(127*f), -127), 127)
}

// NextWeapon returns the weapon held (in the bit mask owned) after cur in
// direction dir (+1 or -1), or cur if there is none.
func NextWeapon(owned, cur int32, dir int) int32 {
	w := cur
	for range bg.NumWeapons - 1 {
		w += int32(dir)
		if w <= bg.WPNone {
			w = bg.NumWeapons - 1
		} else if w >= bg.NumWeapons {
			w = bg.WPNone + 1
		}
		if owned&(1<<w) != 0 {
			return w
		}
	}
	return cur
}

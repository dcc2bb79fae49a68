package client

import (
	"testing"

	"tremor/bg"
)

// After a stall of seconds — the process stopped, or a server hitch that
// dropped its time — the client's clock is seconds ahead of the server's.
// The reset estimate must take the render time, and the usercmds' server
// times with it, back at once: catching up at half speed would send
// commands from the future for twice the stall, which the server pulls
// back and prediction cannot replay. A correction under JumpBackTime
// still never runs time backwards (TestTimeSyncConverges).
func TestTimeJumpsBackAfterStall(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	// The server's time is the client's realtime + offset, snapshots
	// every 50 ms of it.
	offset := int32(7000)
	serverNow := now + offset
	run := func(until int32) {
		for ; now < until; now += 16 {
			for serverNow+50 <= now+offset {
				serverNow += 50
				s.sendSnapshot(serverNow, bg.PlayerState{CommandTime: serverNow - 10}, nil, s.deltaFor(), 0)
			}
			step(t, c, s, now, bg.UserCmd{})
		}
	}
	run(now + 2000)
	if c.Stats().TimeJumpsBack != 0 {
		t.Fatalf("%d jumps back on a steady link", c.Stats().TimeJumpsBack)
	}

	// Stall for 5 s: the client's clock runs on, the server's (which
	// dropped the hitch) does not.
	const stall = 5000
	now += stall
	offset -= stall
	step(t, c, s, now, bg.UserCmd{})
	if ahead := c.ServerTime() - serverNow; ahead < stall/2 {
		t.Fatalf("right after the stall the estimate is %d ms ahead of the server, want about %d", ahead, stall)
	}
	run(now + 200)
	if c.Stats().TimeJumpsBack != 1 {
		t.Errorf("%d jumps back after a 5 s stall, want 1", c.Stats().TimeJumpsBack)
	}
	if d := c.ServerTime() - serverNow; d > 50 || d < -150 {
		t.Errorf("200 ms after the stall the render time is %d ms from the server's, want within a few snapshots", d)
	}
	var cmd bg.UserCmd
	if !c.GetUserCmd(c.CurrentCmdNumber(), &cmd) {
		t.Fatal("no usercmd")
	}
	if d := cmd.ServerTime - serverNow; d > 100 {
		t.Errorf("the newest usercmd is %d ms ahead of the server: the server would pull it back (MaxCommandAhead)", d)
	}
}

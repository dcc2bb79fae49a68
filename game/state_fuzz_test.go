package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// FuzzReadState feeds ReadState arbitrary bytes. It must never panic; a
// refused state leaves the game exactly as it was; an accepted one
// encodes again to a state that reads back equal (DiffState finds
// nothing), and the game runs frames from it (every client in the game
// sending a command, as a frame-sync client's copy would) without
// panicking. The seeds are real states of a match of four bots and a
// human on duel1, at its start and after five seconds.
func FuzzReadState(f *testing.F) {
	src := newLockstep(f, "duel1", 2, lockstepConfig(), 4, 1)
	f.Add(encodeState(f, src.g, msg.Huffman))
	src.run(0, 100)
	f.Add(encodeState(f, src.g, msg.Huffman))
	f.Add([]byte{})

	dst := newLockstep(f, "duel1", 9, lockstepConfig(), 4, 0)
	dst.run(0, 20)
	orig := dst.save()
	now := game.NewState()
	again := game.NewState()
	buf := make([]byte, 256<<10)
	cmd := bg.UserCmd{RightMove: 127, UpMove: 127, Buttons: bg.ButtonAttack, Weapon: bg.WPRocketLauncher, Aim: 4000}

	f.Fuzz(func(t *testing.T, data []byte) {
		g := dst.g
		g.LoadState(orig)
		hash := g.StateHash()
		if err := g.ReadState(msg.NewReader(data, msg.Huffman)); err != nil {
			g.SaveState(now)
			if what, differs := game.DiffState(orig, now); differs || g.StateHash() != hash {
				t.Fatalf("refused (%v) but the game changed: %s", err, what)
			}
			return
		}
		g.SaveState(now)
		w := msg.NewWriter(buf, msg.Huffman)
		now.Append(w)
		if err := w.Err(); err != nil {
			t.Fatalf("an accepted state does not encode again: %v", err)
		}
		if err := again.Read(msg.NewReader(w.Bytes(), msg.Huffman)); err != nil {
			t.Fatalf("an accepted state, encoded again, is refused: %v", err)
		}
		if what, differs := game.DiffState(now, again); differs {
			t.Fatalf("an accepted state, encoded again, reads back different: %s", what)
		}
		tm := now.LevelTime()
		for k := 0; k < 5; k++ {
			tm += 50
			for n := 0; n < bg.MaxClients; n++ {
				if g.InGame(n) {
					c := cmd
					c.ServerTime = tm
					g.ClientThink(n, &c)
				}
			}
			g.RunFrame(tm)
		}
	})
}

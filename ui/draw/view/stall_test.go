package view

import "testing"

func TestStallMarker(t *testing.T) {
	type step struct {
		now     int32
		stalled bool
		ahead   int32
		want    string
	}
	const msg8 = "8 frames ahead of the last confirmed one: waiting for the server"
	tests := []struct {
		name  string
		steps []step
	}{
		{"never stalled", []step{{0, false, 2, ""}, {100, false, 3, ""}}},
		{"while stalled", []step{{1000, true, 8, msg8}, {1008, true, 8, msg8}}},
		{"held after", []step{{1000, true, 8, msg8}, {1008, false, 7, msg8}, {1000 + StallHoldMsec - 1, false, 2, msg8}, {1000 + StallHoldMsec, false, 2, ""}}},
		{"held from the last stall", []step{{1000, true, 8, msg8}, {1400, true, 8, msg8}, {1000 + StallHoldMsec, false, 2, msg8}, {1400 + StallHoldMsec, false, 2, ""}}},
		{"frames ahead follow", []step{{1000, true, 3, "3 frames ahead of the last confirmed one: waiting for the server"}, {1008, true, 8, msg8}}},
		{"stalled again", []step{{1000, true, 8, msg8}, {2000, false, 2, ""}, {3000, true, 8, msg8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m StallMarker
			for i, s := range tc.steps {
				m.Update(s.now, s.stalled, s.ahead)
				if got := m.Text(s.now); got != s.want {
					t.Errorf("step %d at %d: %q, want %q", i, s.now, got, s.want)
				}
			}
			m.Reset()
			if got := m.Text(tc.steps[len(tc.steps)-1].now); got != "" {
				t.Errorf("after Reset: %q", got)
			}
		})
	}
}

func TestStallMarkerAllocs(t *testing.T) {
	var m StallMarker
	m.Update(0, true, 8)
	m.Text(0)
	now := int32(0)
	if n := testing.AllocsPerRun(100, func() {
		now += 8
		m.Update(now, true, 8)
		m.Text(now)
	}); n != 0 {
		t.Errorf("%v allocations a frame", n)
	}
}

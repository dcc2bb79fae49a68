package session

import (
	"strings"
	"testing"

	"tremor/client"
)

func TestFrameSyncNotes(t *testing.T) {
	type step struct {
		on        bool
		noPredict bool
		nudge     int
		autoNudge bool
		want      []string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"snapshots say nothing", []step{{noPredict: true, nudge: 50, autoNudge: true}, {noPredict: false}}},
		{"set in frame sync", []step{{on: true}, {on: true, noPredict: true, want: []string{noteNoPredict}},
			{on: true, noPredict: true}, {on: true, noPredict: true, nudge: 30, want: []string{noteTimeNudge}},
			{on: true, noPredict: true, nudge: -20, want: []string{noteTimeNudge}}, {on: true, noPredict: true, nudge: -20, autoNudge: true, want: []string{noteAutoNudge}}}},
		{"unset says nothing", []step{{on: true, nudge: 30, want: []string{noteTimeNudge}}, {on: true}}},
		{"set before frame sync starts", []step{{noPredict: true, nudge: 40}, {on: true, noPredict: true, nudge: 40, want: []string{noteNoPredict, noteTimeNudge}}, {on: true, noPredict: true, nudge: 40}}},
		{"again at the next frame-sync game", []step{{on: true, autoNudge: true, want: []string{noteAutoNudge}}, {autoNudge: true}, {on: true, autoNudge: true, want: []string{noteAutoNudge}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n frameSyncNotes
			var cv client.Cvars
			for i, s := range tc.steps {
				cv.CGame.NoPredict, cv.TimeNudge, cv.AutoNudge = s.noPredict, s.nudge, s.autoNudge
				var out strings.Builder
				n.frame(&out, s.on, &cv)
				var got []string
				if out.Len() > 0 {
					got = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
				}
				if strings.Join(got, "|") != strings.Join(s.want, "|") {
					t.Errorf("step %d: printed %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

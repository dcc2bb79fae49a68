package journaltest

import "testing"

func TestCheckNoReplay(t *testing.T) {
	for _, tt := range []struct {
		name  string
		names []string
		want  string // the error, "" for none
	}{
		{"none", nil, ""},
		{"replayed cvars", []string{"cl_maxpackets", "sv_fps", "g_gametype", "rconPassword"}, ""},
		{"listed", []string{"journal", "JOURNAL_FILE", "net_ip", "net_port", "sv_mapdir", "fs_homepath", "sv_master2", "cl_lanPorts", "cpuprofile"}, ""},
		{"a folder not listed", []string{"sv_fps", "sv_demodir"}, "journaltest: sv_demodir would replay the recording machine's value: add them to common/journal's noReplay"},
		{"every kind", []string{"journal_dump", "cl_savepath", "log_file", "memprofile", "sv_webrtc_ip", "sv_voiceport", "sv_master6", "cl_maxpackets"},
			"journaltest: journal_dump, cl_savepath, log_file, memprofile, sv_webrtc_ip, sv_voiceport, sv_master6 would replay the recording machine's value: add them to common/journal's noReplay"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNoReplay(tt.names)
			if got := ""; err != nil {
				got = err.Error()
				if got != tt.want {
					t.Errorf("CheckNoReplay: %q, want %q", got, tt.want)
				}
			} else if tt.want != "" {
				t.Errorf("CheckNoReplay: nil, want %q", tt.want)
			}
		})
	}
}

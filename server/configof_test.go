package server

import (
	"io"
	"testing"

	"tremor/common/console"
)

func TestConfigOf(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		wantPort int
		wantDir  string
	}{
		{"declared, untouched: the defaults", nil, -1, ""},
		{"set before the server starts", []string{"set sv_webPort 8080", "set sv_webDir /srv/web"}, 8080, "/srv/web"},
		{"turned off", []string{"set sv_webPort 0"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := console.NewTable()
			tb.SetOutput(io.Discard)
			DeclareCvars(tb)
			for _, l := range tt.lines {
				tb.ExecuteString(l)
			}
			c := ConfigOf(tb)
			if c.WebPort != tt.wantPort || c.WebDir != tt.wantDir {
				t.Fatalf("ConfigOf: sv_webPort %d, sv_webDir %q; want %d, %q", c.WebPort, c.WebDir, tt.wantPort, tt.wantDir)
			}
			if c.FPS != DefaultConfig().FPS {
				t.Fatalf("ConfigOf: sv_fps %d, want the default %d", c.FPS, DefaultConfig().FPS)
			}
		})
	}
}

package client

import (
	"io"
	"testing"
	"time"

	"tremor/cgame"
	"tremor/common/console"
)

// Each cvar reaches its field and the engine's Config, and runs the hook
// its group declares, and no other.
func TestBindCvars(t *testing.T) {
	setup := func() (*console.Table, *Cvars, *[]string) {
		tab := console.NewTable()
		tab.SetOutput(io.Discard)
		var c Cvars
		var hooks []string
		note := func(s string) func() { return func() { hooks = append(hooks, s) } }
		BindCvars(tab.Bind(nil), &c, "Ann", CvarHooks{Engine: note("engine"), CGame: note("cgame"), MaxFPS: note("maxfps")})
		return tab, &c, &hooks
	}
	tests := []struct {
		line string
		hook string
		ok   func(c *Cvars, cfg Config) bool
	}{
		{"", "", func(c *Cvars, cfg Config) bool {
			return cfg.Name == "Ann" && cfg.Rate == 25000 && cfg.PacketDup == 1 && !cfg.NoPacketDup &&
				cfg.Timeout == 30*time.Second && !cfg.NoDownload && c.MaxFPS == 60 && c.CGame.ErrorDecay == 100 && c.CGame.PmoveMsec == cgame.DefaultConfig().PmoveMsec
		}},
		{"name Bo", "engine", func(_ *Cvars, cfg Config) bool { return cfg.Name == "Bo" }},
		{"cl_packetdup 0", "engine", func(_ *Cvars, cfg Config) bool { return cfg.PacketDup == 0 && cfg.NoPacketDup }},
		{"cl_packetdelay 200", "engine", func(_ *Cvars, cfg Config) bool { return cfg.PacketDelay == 200*time.Millisecond }},
		{"cl_packetloss 12.5", "engine", func(_ *Cvars, cfg Config) bool { return cfg.PacketLoss == 12.5 }},
		{"cl_allowDownload 0", "engine", func(_ *Cvars, cfg Config) bool { return cfg.NoDownload }},
		{"cl_timeout 5", "engine", func(_ *Cvars, cfg Config) bool { return cfg.Timeout == 5*time.Second }},
		{"cl_shownet -1", "engine", func(_ *Cvars, cfg Config) bool { return cfg.ShowNet == -1 }},
		{"com_maxfps 125", "maxfps", func(c *Cvars, _ Config) bool { return c.MaxFPS == 125 }},
		{"cg_nopredict 1", "cgame", func(c *Cvars, _ Config) bool { return c.CGame.NoPredict }},
		{"cg_errorDecay 0", "cgame", func(c *Cvars, _ Config) bool { return c.CGame.ErrorDecay == 0 }},
		{"cg_showmiss 2", "cgame", func(c *Cvars, _ Config) bool { return c.CGame.ShowMiss == 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			tab, c, hooks := setup()
			if tt.line != "" {
				tab.ExecuteString(tt.line)
			}
			if !tt.ok(c, c.Config()) {
				t.Errorf("cvars %+v", *c)
			}
			want := []string{tt.hook}
			if tt.hook == "" {
				want = nil
			}
			if len(*hooks) != len(want) || (len(want) == 1 && (*hooks)[0] != want[0]) {
				t.Errorf("hooks %q, want %q", *hooks, want)
			}
		})
	}
}

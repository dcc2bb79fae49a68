package infostr

import (
	"slices"
	"strings"
	"testing"
)

const serverInfo = `\sv_hostname\Tremor LAN\mapname\arena1\sv_maxclients\16\protocol\1`

func TestValueForKey(t *testing.T) {
	tests := []struct {
		name, info, key, want string
	}{
		{"first", serverInfo, "sv_hostname", "Tremor LAN"},
		{"last", serverInfo, "protocol", "1"},
		{"case-insensitive", serverInfo, "MapName", "arena1"},
		{"missing", serverInfo, "g_gametype", ""},
		{"ascii folding only", `\k\1`, "\u212a", ""},
		{"empty info", "", "name", ""},
		{"first duplicate wins", `\name\a\NAME\b`, "name", "a"},
		{"empty value", `\name\\rate\25000`, "name", ""},
		{"no leading backslash", `name\a\rate\1`, "rate", "1"},
		{"missing last value", `\name\a\rate`, "rate", ""},
		{"value is not a key", `\name\rate\x\y`, "rate", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValueForKey(tt.info, tt.key); got != tt.want {
				t.Errorf("ValueForKey(%q, %q) = %q, want %q", tt.info, tt.key, got, tt.want)
			}
		})
	}
}

func TestSetValueForKey(t *testing.T) {
	tests := []struct {
		name, info, key, value, want string
	}{
		{"append to empty", "", "name", "Player", `\name\Player`},
		{"append", `\name\Player`, "rate", "25000", `\name\Player\rate\25000`},
		{"replace in place", `\name\a\rate\1`, "name", "b", `\name\b\rate\1`},
		{"replace ignoring case", `\Name\a\rate\1`, "name", "b", `\name\b\rate\1`},
		{"replace removes duplicates", `\name\a\rate\1\NAME\c`, "name", "b", `\name\b\rate\1`},
		{"empty value removes", `\name\a\rate\1`, "name", "", `\rate\1`},
		{"empty value on missing key", `\rate\1`, "name", "", `\rate\1`},
		{"remove last", `\name\a`, "name", "", ``},
		{"spaces and utf8", "", "name", "Jérôme the 2nd", `\name\Jérôme the 2nd`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetValueForKey(tt.info, tt.key, tt.value)
			if err != nil {
				t.Fatalf("SetValueForKey: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if err := Validate(got); err != nil {
				t.Errorf("result does not validate: %v", err)
			}
		})
	}
}

func TestSetValueForKeyErrors(t *testing.T) {
	long := strings.Repeat("x", MaxInfoString)
	tests := []struct {
		name, info, key, value, wantErr string
	}{
		{"empty key", serverInfo, "", "x", "infostr: empty info key"},
		{"backslash in key", serverInfo, `a\b`, "x", `infostr: info key "a\\b" contains '\\'`},
		{"semicolon in key", serverInfo, "a;b", "x", `infostr: info key "a;b" contains ';'`},
		{"quote in value", serverInfo, "name", `a"b`, `infostr: info value for key "name" contains '"'`},
		{"semicolon in value", serverInfo, "name", `quit;`, `infostr: info value for key "name" contains ';'`},
		{"backslash in value", serverInfo, "name", `a\b`, `infostr: info value for key "name" contains '\\'`},
		{"newline in value", serverInfo, "name", "a\nb", `infostr: info value for key "name" contains '\n'`},
		{"malformed info", `name\a`, "rate", "1", `infostr: info string does not start with '\'`},
		{"over cap", serverInfo, "big", long[:MaxInfoString-len(serverInfo)-5], "infostr: setting info key \"big\" would make the string 1024 bytes, limit 1023"},
		{"replace over cap", `\a\b`, "a", long, "infostr: setting info key \"a\" would make the string 1027 bytes, limit 1023"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetValueForKey(tt.info, tt.key, tt.value)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %s", err, tt.wantErr)
			}
			if got != tt.info {
				t.Errorf("info changed on error: %q", got)
			}
		})
	}
	t.Run("at cap", func(t *testing.T) {
		v := long[:MaxInfoString-len(serverInfo)-6]
		got, err := SetValueForKey(serverInfo, "big", v)
		if err != nil || len(got) != MaxInfoString-1 {
			t.Errorf("len %d, err %v; want %d, nil", len(got), err, MaxInfoString-1)
		}
	})
	t.Run("big", func(t *testing.T) {
		v := long[:MaxInfoString-len(serverInfo)]
		got, err := SetValueForKeyBig(serverInfo, "big", v)
		if err != nil || ValueForKey(got, "big") != v {
			t.Fatalf("SetValueForKeyBig: %v", err)
		}
		if _, err := SetValueForKeyBig(got, "huge", strings.Repeat("y", BigInfoString)); err == nil {
			t.Error("SetValueForKeyBig past BigInfoString: no error")
		}
	})
}

func TestRemoveKey(t *testing.T) {
	tests := []struct {
		name, info, key, want string
	}{
		{"middle", serverInfo, "mapname", `\sv_hostname\Tremor LAN\sv_maxclients\16\protocol\1`},
		{"case and duplicates", `\a\1\B\2\b\3`, "b", `\a\1`},
		{"missing returns input", `name\x`, "rate", `name\x`},
		{"all", `\a\1`, "A", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RemoveKey(tt.info, tt.key); got != tt.want {
				t.Errorf("RemoveKey(%q, %q) = %q, want %q", tt.info, tt.key, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, info, wantErr string
	}{
		{"empty", "", ""},
		{"server info", serverInfo, ""},
		{"empty value", `\name\`, ""},
		{"empty values", `\a\\b\`, ""},
		{"no leading backslash", `name\a`, `infostr: info string does not start with '\'`},
		{"lone backslash", `\`, "infostr: info string has an empty key in pair 1"},
		{"trailing backslash", `\a\b\`, "infostr: info string has an empty key in pair 2"},
		{"empty key", `\a\b\\c`, "infostr: info string has an empty key in pair 2"},
		{"key without value", `\a\b\c`, `infostr: info key "c" has no value`},
		{"semicolon", `\a\b;c`, `infostr: info value for key "a" contains ';'`},
		{"quote in key", `\a"\b`, `infostr: info key "a\"" contains '"'`},
		{"nul", "\\a\\b\x00", `infostr: info value for key "a" contains '\x00'`},
		{"too long", `\a\` + strings.Repeat("x", MaxInfoString), "infostr: info string is 1027 bytes, limit 1023"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.info)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Validate(%q) = %v", tt.info, err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Validate(%q) = %v, want %s", tt.info, err, tt.wantErr)
			}
		})
	}
	if err := ValidateBig(`\a\` + strings.Repeat("x", MaxInfoString)); err != nil {
		t.Errorf("ValidateBig: %v", err)
	}
}

func TestPairs(t *testing.T) {
	got, err := Pairs(serverInfo)
	if err != nil {
		t.Fatal(err)
	}
	want := []KeyValue{
		{"sv_hostname", "Tremor LAN"}, {"mapname", "arena1"},
		{"sv_maxclients", "16"}, {"protocol", "1"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Pairs = %q, want %q", got, want)
	}
	if _, err := Pairs(`\a`); err == nil {
		t.Error("Pairs of malformed string: no error")
	}
	var seq []KeyValue
	for k, v := range PairsSeq(serverInfo) {
		seq = append(seq, KeyValue{k, v})
		if k == "mapname" {
			break
		}
	}
	if !slices.Equal(seq, want[:2]) {
		t.Errorf("PairsSeq with break = %q", seq)
	}
}

func TestValueForKeyAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		_ = ValueForKey(serverInfo, "PROTOCOL")
	})
	if allocs != 0 {
		t.Errorf("ValueForKey: %v allocs, want 0", allocs)
	}
}

func BenchmarkValueForKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ValueForKey(serverInfo, "protocol")
	}
}

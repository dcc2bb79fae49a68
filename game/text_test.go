package game

import "testing"

func TestSanitizeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ana", "Ana"},
		{"  Ana  ", "Ana"},
		{"\x1b[2J\x1b]0;pwned\x07Ana", "[2J]0pwnedAna"},
		{"A\u009b31mna", "A31mna"}, // C1 CSI
		{"\u202eanA", "anA"},       // bidi override
		{"A\u200bna", "Ana"},       // zero width space
		{"server: you are banned", "server you are banned"},
		{"Zoë", "Zoë"},      // Latin-1 stays
		{"Ѕerver", "erver"}, // Cyrillic Ѕ goes
		{"q\"u;o\\te", "quote"},
		{"\x00\x01", "UnnamedPlayer"},
	} {
		if got := sanitizeName(tc.in); got != tc.want {
			t.Errorf("sanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestImpersonates(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"server", true}, {"SERVER", true}, {"S e r v e r", true}, {"5erv3r", true},
		{"Sérvèr", true}, {"console", true}, {"c0ns0le", true}, {"Admin", true},
		{"Servant", false}, {"server2", false}, {"Ana", false}, {"ServerFan", false},
	} {
		if got := impersonates(tc.name); got != tc.want {
			t.Errorf("impersonates(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSanitizeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello", "hello"},
		{"say \"hi\"", "say 'hi'"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"evil\u202etxt.exe", "eviltxt.exe"},
		{"a\rb\nc", "abc"},
		{"日本", "日本"},
	} {
		if got := sanitizeText(tc.in, MaxSayText); got != tc.want {
			t.Errorf("sanitizeText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

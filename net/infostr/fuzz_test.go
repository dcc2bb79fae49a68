package infostr

import (
	"slices"
	"strings"
	"testing"
)

func FuzzInfo(f *testing.F) {
	f.Add(serverInfo, "mapname", "arena2")
	f.Add(`\name\Player\rate\25000\snaps\20\cl_maxpackets\30\model\sarge`, "NAME", "")
	f.Add(`\challenge\-12345\protocol\68\g_needpass\0`, "challenge", "x y")
	f.Add(`\a\1\A\2\b\`, "b", "3")
	f.Add(`name\x`, "rate", "1")
	f.Add("", "key", `bad"value`)
	f.Add(`\\\`, `k;`, "v")
	f.Fuzz(func(t *testing.T, info, key, value string) {
		// A little past the limits is enough to test them. Longer inputs,
		// which chained mutations make, find nothing new but cost O(n²)
		// runs to minimize when they do, which the fuzz coordinator
		// counts only at the end: whole 10 s runs went to one.
		info = info[:min(len(info), MaxInfoString+64)]
		key, value = key[:min(len(key), 256)], value[:min(len(value), 256)]
		_ = ValueForKey(info, key)
		for range PairsSeq(info) {
		}
		if got := RemoveKey(info, key); ValueForKey(got, key) != "" {
			t.Fatalf("RemoveKey(%q, %q) = %q still holds the key", info, key, got)
		}

		for _, set := range []struct {
			fn    func(string, string, string) (string, error)
			limit int
		}{{SetValueForKey, MaxInfoString}, {SetValueForKeyBig, BigInfoString}} {
			res, err := set.fn(info, key, value)
			if err != nil {
				if res != info {
					t.Fatalf("set changed the string on error %v", err)
				}
				continue
			}
			if err := checkInfo(res, set.limit); err != nil {
				t.Fatalf("set(%q, %q, %q) = %q, invalid: %v", info, key, value, res, err)
			}
			if got := ValueForKey(res, key); got != value {
				t.Fatalf("after set, ValueForKey = %q, want %q", got, value)
			}
			for k := range PairsSeq(info) {
				if !equalFold(k, key) && ValueForKey(res, k) != ValueForKey(info, k) {
					t.Fatalf("set of %q changed key %q", key, k)
				}
			}
		}

		pairs, err := Pairs(info)
		if err != nil {
			return
		}
		// Rebuild from empty, keeping the first pair of each key as the
		// lookup does. An empty value sets nothing but still hides later
		// duplicates from the lookup.
		var want []KeyValue
		seen := make(map[string]bool)
		rebuilt := ""
		for _, kv := range pairs {
			lower := strings.Map(func(r rune) rune {
				if 'A' <= r && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, kv.Key)
			if seen[lower] {
				continue
			}
			seen[lower] = true
			if got := ValueForKey(info, kv.Key); got != kv.Value {
				t.Fatalf("ValueForKey(%q) = %q, first pair says %q", kv.Key, got, kv.Value)
			}
			if kv.Value != "" {
				want = append(want, kv)
			}
			rebuilt, err = SetValueForKeyBig(rebuilt, kv.Key, kv.Value)
			if err != nil {
				t.Fatalf("rebuilding %q: %v", info, err)
			}
		}
		got, err := Pairs(rebuilt)
		if err != nil {
			t.Fatalf("rebuilt %q: %v", rebuilt, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("rebuilt pairs %q, want %q", got, want)
		}
		if Validate(info) == nil && Validate(rebuilt) != nil {
			t.Fatalf("rebuilt %q of valid %q does not validate", rebuilt, info)
		}
	})
}

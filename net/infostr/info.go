package infostr

import (
	"errors"
	"fmt"
	"iter"
	"strings"
)

// Info string limits. As in Quake III, an info string must be shorter
// than its limit, which leaves room for a C string's terminating NUL.
const (
	// MaxInfoString bounds userinfo and serverinfo strings
	// (MAX_INFO_STRING): at most MaxInfoString-1 bytes.
	MaxInfoString = 1024

	// BigInfoString bounds the big info strings of getstatus replies and
	// systeminfo (BIG_INFO_STRING): at most BigInfoString-1 bytes.
	BigInfoString = 8192
)

// KeyValue is one pair of an info string.
type KeyValue struct {
	Key, Value string
}

// forbidden reports whether c may not appear in an info key or value.
// Quake III refused '\\', ';' and '"'. Tremor also refuses NUL (which would
// cut the string short for C readers), and CR and LF (which would break
// the line-based statusResponse).
func forbidden(c byte) bool {
	switch c {
	case '\\', ';', '"', 0, '\n', '\r':
		return true
	}
	return false
}

// IndexForbidden returns the index of the first byte of s that an info
// string key or value may not hold ('\\', ';', '"', NUL, CR, LF), or -1.
func IndexForbidden(s string) int { return badByte(s) }

func badByte(s string) int {
	for i := 0; i < len(s); i++ {
		if forbidden(s[i]) {
			return i
		}
	}
	return -1
}

func checkKey(key string) error {
	if key == "" {
		return errors.New("empty info key")
	}
	if i := badByte(key); i >= 0 {
		return fmt.Errorf("info key %q contains %q", key, key[i])
	}
	return nil
}

func checkValue(key, value string) error {
	if i := badByte(value); i >= 0 {
		return fmt.Errorf("info value for key %q contains %q", key, value[i])
	}
	return nil
}

// checkFormat checks the structure and characters of info, not its length.
func checkFormat(info string) error {
	if info == "" {
		return nil
	}
	if info[0] != '\\' {
		return errors.New(`info string does not start with '\'`)
	}
	s := info[1:]
	for pair := 1; ; pair++ {
		key, rest, ok := strings.Cut(s, `\`)
		if key == "" {
			return fmt.Errorf("info string has an empty key in pair %d", pair)
		}
		if err := checkKey(key); err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("info key %q has no value", key)
		}
		value, rest, ok := strings.Cut(rest, `\`)
		if err := checkValue(key, value); err != nil {
			return err
		}
		if !ok {
			return nil
		}
		s = rest
	}
}

func checkInfo(info string, limit int) error {
	if len(info) >= limit {
		return fmt.Errorf("info string is %d bytes, limit %d", len(info), limit-1)
	}
	return checkFormat(info)
}

// Validate reports whether info is a well-formed info string of less than
// [MaxInfoString] bytes: empty, or a '\' followed by key\value pairs
// separated by '\', with no empty key and no key or value holding '\',
// ';', '"', NUL, CR or LF. Empty values are allowed. Duplicate keys are
// allowed; lookups see the first.
func Validate(info string) error {
	if err := checkInfo(info, MaxInfoString); err != nil {
		return fmt.Errorf("infostr: %w", err)
	}
	return nil
}

// ValidateBig is [Validate] with the [BigInfoString] limit.
func ValidateBig(info string) error {
	if err := checkInfo(info, BigInfoString); err != nil {
		return fmt.Errorf("infostr: %w", err)
	}
	return nil
}

// nextPair reads the pair that starts at s[i], tolerating malformed
// strings as Quake III's Info_NextPair did: a leading '\' is optional and
// a missing value is empty. Every call that returns true advances i.
func nextPair(s string, i int) (key, value string, next int, ok bool) {
	if i >= len(s) {
		return "", "", len(s), false
	}
	if s[i] == '\\' {
		i++
	}
	k := strings.IndexByte(s[i:], '\\')
	if k < 0 {
		return s[i:], "", len(s), true
	}
	key = s[i : i+k]
	i += k + 1
	v := strings.IndexByte(s[i:], '\\')
	if v < 0 {
		return key, s[i:], len(s), true
	}
	return key, s[i : i+v], i + v, true
}

// PairsSeq yields the pairs of info in order, duplicates included. It does
// not validate: on a malformed string it yields what Quake III's reader
// would have seen (a missing leading '\' is tolerated, a missing last
// value is empty).
func PairsSeq(info string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for i := 0; ; {
			key, value, next, ok := nextPair(info, i)
			if !ok || !yield(key, value) {
				return
			}
			i = next
		}
	}
}

// Pairs returns the pairs of info in order, duplicates included, after
// checking it as [ValidateBig] does.
func Pairs(info string) ([]KeyValue, error) {
	if err := ValidateBig(info); err != nil {
		return nil, err
	}
	kv := make([]KeyValue, 0, strings.Count(info, `\`)/2)
	for k, v := range PairsSeq(info) {
		kv = append(kv, KeyValue{k, v})
	}
	return kv, nil
}

// ValueForKey returns the value of the first pair of info whose key equals
// key ignoring ASCII case, or "" if there is none (Info_ValueForKey). It
// does not validate info and does not allocate.
func ValueForKey(info, key string) string {
	for i := 0; ; {
		k, v, next, ok := nextPair(info, i)
		if !ok {
			return ""
		}
		if equalFold(k, key) {
			return v
		}
		i = next
	}
}

// SetValueForKey returns info with key set to value (Info_SetValueForKey).
// An existing pair with that key (compared ignoring case) is replaced in
// place and later duplicates are removed; an empty value removes the key;
// otherwise the pair is appended. It refuses, returning info unchanged and
// an error, a malformed info, an empty key, a key or value holding '\',
// ';', '"', NUL, CR or LF, and a result of [MaxInfoString] bytes or more.
// (Quake III removed the old pair before finding that the new one did not
// fit, losing it; Tremor leaves the string as it was.)
func SetValueForKey(info, key, value string) (string, error) {
	return setValueForKey(info, key, value, MaxInfoString)
}

// SetValueForKeyBig is [SetValueForKey] with the [BigInfoString] limit
// (Info_SetValueForKey_Big).
func SetValueForKeyBig(info, key, value string) (string, error) {
	return setValueForKey(info, key, value, BigInfoString)
}

func setValueForKey(info, key, value string, limit int) (string, error) {
	if err := checkKey(key); err != nil {
		return info, fmt.Errorf("infostr: %w", err)
	}
	if err := checkValue(key, value); err != nil {
		return info, fmt.Errorf("infostr: %w", err)
	}
	if err := checkFormat(info); err != nil {
		return info, fmt.Errorf("infostr: %w", err)
	}
	var b strings.Builder
	b.Grow(len(info) + len(key) + len(value) + 2)
	found := false
	for k, v := range PairsSeq(info) {
		if equalFold(k, key) {
			if !found && value != "" {
				writePair(&b, key, value)
			}
			found = true
			continue
		}
		writePair(&b, k, v)
	}
	if !found && value != "" {
		writePair(&b, key, value)
	}
	if b.Len() >= limit {
		return info, fmt.Errorf("infostr: setting info key %q would make the string %d bytes, limit %d", key, b.Len(), limit-1)
	}
	return b.String(), nil
}

func writePair(b *strings.Builder, key, value string) {
	b.WriteByte('\\')
	b.WriteString(key)
	b.WriteByte('\\')
	b.WriteString(value)
}

// RemoveKey returns info without the pairs whose key equals key ignoring
// case (Info_RemoveKey, which Quake III applied case-sensitively and to
// the first pair only). If no pair matches, info is returned unchanged;
// otherwise the rest is rebuilt as [PairsSeq] reads it.
func RemoveKey(info, key string) string {
	found := false
	for k := range PairsSeq(info) {
		if equalFold(k, key) {
			found = true
			break
		}
	}
	if !found {
		return info
	}
	var b strings.Builder
	b.Grow(len(info))
	for k, v := range PairsSeq(info) {
		if !equalFold(k, key) {
			writePair(&b, k, v)
		}
	}
	return b.String()
}

// EqualFold reports whether a and b are equal ignoring ASCII case, as
// Quake III compared keys and commands (strings.EqualFold would also fold
// non-ASCII letters, such as the Kelvin sign with 'k').
func EqualFold(a, b string) bool { return equalFold(a, b) }

// equalFold reports whether a and b are equal ignoring ASCII case, as
// Quake III's Q_stricmp compared. (strings.EqualFold would also fold
// non-ASCII letters, such as the Kelvin sign with 'k'.)
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

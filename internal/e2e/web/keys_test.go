package web

import (
	"testing"
	"time"
)

// pressMenuKeys presses, as the browser's own key events, the keys a
// player presses first in the menu: Escape, then the arrow keys, then
// Escape again. Escape gives the page no user activation and an arrow
// key does, so audio that starts at a key release sees one release the
// browser cannot act on and then one it can (cmd/client's
// audioresume_js.go): the console must show no error after them.
func pressMenuKeys(t *testing.T, c *cdp, s string) {
	t.Helper()
	for _, k := range []struct {
		key string
		vk  int
	}{
		{"Escape", 27}, {"ArrowDown", 40}, {"ArrowUp", 38}, {"ArrowLeft", 37}, {"ArrowRight", 39}, {"Escape", 27},
	} {
		for _, typ := range []string{"rawKeyDown", "keyUp"} {
			if err := c.call(s, "Input.dispatchKeyEvent", map[string]any{
				"type": typ, "key": k.key, "code": k.key, "windowsVirtualKeyCode": k.vk,
			}, nil, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	time.Sleep(2 * time.Second) // for what the last keys started to settle
}

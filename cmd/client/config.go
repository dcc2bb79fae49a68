package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"tremor/cmd/client/internal/userdata"
	"tremor/common/console"
	"tremor/net/cmdargs"
)

// Where the client keeps what it saves between runs, in the data
// directory (package userdata, over gdata): Quake III kept the same in
// q3config.cfg.
const (
	configObject = "config"
	cvarsProp    = "cvars.cfg"   // seta lines: the archived cvars
	bindsProp    = "binds.cfg"   // bind lines
	historyProp  = "history.txt" // the console's input history, a line each
)

// config saves and restores the archived cvars, the binds and the
// console history.
type config struct {
	m     *userdata.Data
	saved map[string]string // what each text property holds on disk
}

// Load implements console.Store over cvars.cfg.
func (c *config) Load() (map[string]string, error) {
	b, err := c.m.Load(configObject, cvarsProp)
	if err != nil {
		return nil, err
	}
	return console.DecodeConfig(b)
}

// Save implements console.Store over cvars.cfg.
func (c *config) Save(kv map[string]string) error {
	return c.m.Save(configObject, cvarsProp, console.EncodeConfig(kv))
}

// openConfig opens the data directory (home, fs_homepath's value, or the
// platform's when empty) and loads the archived cvars into t. A failure
// is printed and the client runs without saving: nil.
func openConfig(t *console.Table, home string, stderr io.Writer) *config {
	m, err := userdata.Open("tremor", home)
	if err != nil {
		fmt.Fprintf(stderr, "client: settings will not be saved: %v\n", err)
		return nil
	}
	c := &config{m: m, saved: make(map[string]string)}
	if err := t.LoadArchived(c); err != nil {
		fmt.Fprintf(stderr, "client: %v (defaults used)\n", err)
	}
	return c
}

// loadText returns a saved text property, or "" (printing why when it
// could not be read).
func (c *config) loadText(prop string, stderr io.Writer) string {
	if c == nil {
		return ""
	}
	b, err := c.m.Load(configObject, prop)
	if err != nil {
		fmt.Fprintf(stderr, "client: %v\n", err)
	}
	return string(b)
}

// saveText saves a text property unless it is unchanged since it was
// loaded or last saved.
func (c *config) saveText(prop string, text []byte) error {
	if c == nil || c.saved[prop] == string(text) {
		return nil
	}
	if err := c.m.Save(configObject, prop, text); err != nil {
		return err
	}
	c.saved[prop] = string(text)
	return nil
}

// loadSaved runs the saved binds (which replace the defaults) and
// restores the console history.
func (g *game) loadSaved() {
	if text := g.cfg.loadText(bindsProp, g.stderr); text != "" {
		for _, line := range strings.Split(text, "\n") {
			if a := cmdargs.Tokenize(line); a.Argc() > 0 {
				switch strings.ToLower(a.Argv(0)) {
				case "bind", "unbind", "unbindall":
					g.t.ExecuteString(line)
				}
			}
		}
		g.cfg.saved[bindsProp] = text
	}
	if text := g.cfg.loadText(historyProp, g.stderr); text != "" {
		g.con.Prompt.SetHistory(strings.Split(strings.TrimRight(text, "\n"), "\n"))
		g.cfg.saved[historyProp] = text
	}
}

// save writes the archived cvars, the binds and the history, each only
// when it changed. After a journal's replay it saves no cvars: they
// hold the values of the session it recorded, not the player's.
func (g *game) save() {
	if g.cfg == nil {
		return
	}
	if !g.sess.PlayedJournal() {
		if err := g.t.SaveArchived(g.cfg); err != nil {
			g.t.Printf("client: %v\n", err)
		}
	}
	var b bytes.Buffer
	if err := g.binds.WriteBinds(&b); err == nil {
		if err := g.cfg.saveText(bindsProp, b.Bytes()); err != nil {
			g.t.Printf("client: saving binds: %v\n", err)
		}
	}
	b.Reset()
	for _, h := range g.con.Prompt.History() {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	if err := g.cfg.saveText(historyProp, b.Bytes()); err != nil {
		g.t.Printf("client: saving history: %v\n", err)
	}
}

package main

import (
	"errors"
	"fmt"
	"io"
	"syscall/js"
	"time"

	"tremor/cmd/client/internal/session"
	"tremor/net/cmdargs"
	"tremor/net/rtcjs"
	"tremor/ui/menu"
)

// The browser build has no sockets: it joins Tremor servers over WebRTC
// (package net/rtcjs, docs/web.md), posting its offer to the server's web
// port. connect takes the server's web address, and with none the server
// the page came from; the menu's Find servers lists that server. A page
// opened from a Tremor server joins it unless its address starts a game
// of its own (joinPageServer). net.go has the socket build's version.

// pageServer returns the server of the page's own origin; an error for
// a page that did not come from a web server (a file).
func pageServer() (rtcjs.Server, error) {
	loc := js.Global().Get("location")
	return rtcjs.ParseOrigin(loc.Get("protocol").String(), loc.Get("host").String())
}

// pageScheme returns the page's location.protocol ("http:", "https:").
func pageScheme() string { return js.Global().Get("location").Get("protocol").String() }

// originConn is the channel joinPageServer opened to the page's server,
// until connect takes it.
var originConn *rtcjs.Conn

// probeWait bounds how long the page waits for its server's answer
// before it starts: the offer's own timeout and a little.
const probeWait = rtcjs.SignalTimeout + time.Second

// joinPageServer returns the page's command line args with +connect
// put first when the page came from a Tremor server and args start no game
// of their own (session.WithDefaultMatch: nothing, or only settings, as
// "?name=Alice"). It offers a channel to the page's origin and waits for
// the answer: a Tremor server answers POST /rtc with its SDP, and the
// channel is kept for connect; a plain web server (make web-serve's
// webserve answers 204, others 404 or 405) leaves args as they are, so
// the page plays its default local match. A Tremor server that refuses
// (busy: 429) is joined all the same, so that connect says why on the
// page.
func joinPageServer(args []string, stderr io.Writer) []string {
	if _, isDefault := session.WithDefaultMatch(args, execFS()); !isDefault {
		return args
	}
	srv, err := pageServer()
	if err != nil {
		return args
	}
	c, err := rtcjs.Dial(srv)
	if err != nil {
		fmt.Fprintf(stderr, "client: %v\n", err)
		return args
	}
	select {
	case <-c.Signalled():
	case <-time.After(probeWait):
	}
	var he *rtcjs.HTTPError
	switch err := c.Err(); {
	case err == nil:
		originConn = c
	case errors.As(err, &he) && !he.NoServer():
		c.Close()
	default:
		c.Close()
		fmt.Fprintf(stderr, "client: no Tremor server at %s (%v): playing locally\n", srv.Label, err)
		return args
	}
	// First, so that the address's other commands (+wait 100&+say hi)
	// run after it, as they would after a +connect of their own.
	return append([]string{"+connect"}, args...)
}

// openNetwork gives the menu the page's server browser, which lists the
// server the page came from.
func (g *game) openNetwork(mcfg *menu.Config) {
	if srv, err := pageServer(); err == nil {
		mcfg.Browser = newPageBrowser(srv)
	}
}

// addNetCommands adds connect.
func (g *game) addNetCommands() {
	t := g.t
	t.AddCommand("connect", "join a server over WebRTC: connect [HOST[:PORT]], its web port (27960 unless given); no address: the server this page came from", func(a *cmdargs.Args) {
		if a.Argc() > 2 {
			t.Printf("usage: connect [HOST[:PORT]]\n")
			return
		}
		if err := g.connectWeb(a.Argv(1)); err != nil {
			t.Printf("connect: %v\n", err)
		}
	})
}

// connectWeb joins the server at addr over a WebRTC channel, or the
// page's own server when addr is empty (with the channel joinPageServer
// opened, if it is still unused).
func (g *game) connectWeb(addr string) error {
	var (
		srv rtcjs.Server
		err error
		c   *rtcjs.Conn
	)
	if addr == "" {
		if c, originConn = originConn, nil; c != nil {
			srv = c.Server()
		} else if srv, err = pageServer(); err != nil {
			return errors.New("this page came from no server: connect HOST[:PORT]")
		}
	} else if srv, err = rtcjs.ParseConnect(addr, pageScheme()); err != nil {
		return err
	}
	if c == nil {
		if c, err = rtcjs.Dial(srv); err != nil {
			return err
		}
	}
	g.t.Printf("connecting to %s over WebRTC (%s)\n", srv.Label, srv.URL)
	return g.sess.ConnectConn(c, srv.Addr)
}

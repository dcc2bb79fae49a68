package main

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"tremor/client/browser"
	"tremor/net/infostr"
	"tremor/net/oob"
	"tremor/net/rtcjs"
	"tremor/ui/menu"
)

// pageBrowser is the browser build's server browser (the menu's Find
// servers): a page can neither broadcast on its LAN nor ask a master, so
// its LAN tab lists the one server it can find, the one it came from,
// asked with a getinfo over a WebRTC channel of its own that is closed
// once the server answered. The Internet and Favourites tabs say why
// they are empty. It runs in the menu's calls, on the frame's goroutine.
type pageBrowser struct {
	srv     rtcjs.Server
	conn    *rtcjs.Conn
	sent    time.Time // when the getinfo was written, zero when none is out
	chal    string
	entry   browser.Entry
	asked   bool // a refresh was asked for
	listed  bool // the entry is listed
	note    string
	version uint64
	buf     []byte
}

var _ menu.Browser = (*pageBrowser)(nil)

// pageQueryTimeout is how long a refresh waits for the server's answer,
// the channel's set-up included.
const pageQueryTimeout = 5 * time.Second

// newPageBrowser returns the browser of the page that came from srv.
func newPageBrowser(srv rtcjs.Server) *pageBrowser {
	return &pageBrowser{srv: srv, buf: make([]byte, oob.MaxReceivedLen)}
}

// Refresh implements menu.Browser: a LAN refresh asks the page's server
// again.
func (b *pageBrowser) Refresh(src browser.Source) {
	if src != browser.LAN {
		return
	}
	b.stop()
	b.asked, b.listed = true, true
	b.entry = browser.Entry{Label: b.srv.Label, Addr: b.srv.Addr, State: browser.Pending, HostName: b.entry.HostName}
	b.note = ""
	b.version++
	c, err := rtcjs.Dial(b.srv)
	if err != nil {
		b.entry.State, b.note = browser.TimedOut, err.Error()
		return
	}
	b.conn, b.sent = c, time.Now()
	b.chal = strconv.FormatInt(b.sent.UnixNano()&0x7fffffff, 10)
	_ = c.WriteTo(oob.Packet(oob.FormatGetInfo(b.chal)), b.srv.Addr)
}

// stop closes the query's channel, if any.
func (b *pageBrowser) stop() {
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	b.sent = time.Time{}
}

// poll takes the server's answer, or gives up on it.
func (b *pageBrowser) poll() {
	if b.conn == nil {
		return
	}
	for {
		n, ok := b.conn.Poll(b.buf)
		if !ok {
			break
		}
		text, err := oob.Parse(b.buf[:n])
		if err != nil {
			continue
		}
		switch cmd := oob.Command(text); {
		case strings.EqualFold(cmd, oob.CmdInfoResponse):
			info, err := oob.ParseInfoResponse(text)
			if err != nil || infostr.ValueForKey(info, "challenge") != b.chal {
				continue
			}
			// The getinfo left when the channel opened: the set-up
			// (a few round trips and the DTLS handshake) is no ping.
			from := b.sent
			if at := b.conn.OpenedAt(); at.After(from) {
				from = at
			}
			b.entry.Fill(info, time.Since(from))
			b.version++
			b.stop()
			return
		case strings.EqualFold(cmd, oob.CmdPrint):
			// The transport failing (rtcjs.Conn), or the server saying
			// something.
			if msg, err := oob.ParsePrint(text); err == nil {
				b.note = msg
			}
		}
	}
	var he *rtcjs.HTTPError
	if err := b.conn.Err(); errors.As(err, &he) && he.NoServer() {
		// A plain web server sent the page: nothing to list.
		b.listed = false
		b.note = "the page's web server " + b.srv.Label + " runs no Tremor server: connect HOST[:PORT] joins one"
		b.version++
		b.stop()
		return
	}
	if time.Since(b.sent) > pageQueryTimeout {
		b.entry.State = browser.TimedOut
		if b.note == "" {
			b.note = "no answer from " + b.srv.Label
		}
		b.version++
		b.stop()
	}
}

// Refreshing implements menu.Browser.
func (b *pageBrowser) Refreshing(src browser.Source) bool {
	b.poll()
	return src == browser.LAN && b.conn != nil
}

// Refreshed implements menu.Browser: only the LAN tab is ever refreshed,
// the others have nothing to ask.
func (b *pageBrowser) Refreshed(src browser.Source) bool { return src != browser.LAN || b.asked }

// Status implements menu.Browser.
func (b *pageBrowser) Status(src browser.Source) browser.Status {
	b.poll()
	switch src {
	case browser.LAN:
		st := browser.Status{Refreshing: b.conn != nil, Note: b.note}
		if b.listed {
			st.Entries = 1
			if b.entry.State == browser.Answered {
				st.Answered = 1
			}
		}
		return st
	case browser.Internet:
		return browser.Status{Note: "a page asks no master server: connect HOST[:PORT] joins any Tremor server"}
	}
	return browser.Status{Note: "a page keeps no favourites"}
}

// List implements menu.Browser.
func (b *pageBrowser) List(dst []browser.Entry, src browser.Source, o browser.Order) []browser.Entry {
	if src != browser.LAN || !b.listed {
		return dst[:0]
	}
	return browser.List(dst, []browser.Entry{b.entry}, o)
}

// Version implements menu.Browser.
func (b *pageBrowser) Version() uint64 {
	b.poll()
	return b.version
}

// IsFavorite implements menu.Browser: a page keeps none.
func (b *pageBrowser) IsFavorite(string) bool { return false }

// AddFavorite implements menu.Browser: a page keeps none.
func (b *pageBrowser) AddFavorite(string) error {
	return errors.New("a page keeps no favourites")
}

// RemoveFavorite implements menu.Browser.
func (b *pageBrowser) RemoveFavorite(string) {}

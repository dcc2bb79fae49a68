package web

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// cdp is a client of the Chrome DevTools protocol over the pipe
// Chromium opens with --remote-debugging-pipe: JSON messages, each ended
// by a NUL byte, commands written to the browser's fd 3 and answers and
// events read from its fd 4.
type cdp struct {
	w io.Writer

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  func(m cdpMessage) // called on the reading goroutine
	closed  error
}

// cdpMessage is an answer (ID set) or an event (Method set).
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// newCDP reads r until it ends, handing events to events.
func newCDP(w io.Writer, r io.Reader, events func(cdpMessage)) *cdp {
	c := &cdp{w: w, waiting: make(map[int]chan cdpMessage), events: events}
	go c.read(r)
	return c
}

func (c *cdp) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var b []byte
		if b, err = br.ReadBytes(0); err != nil {
			break
		}
		var m cdpMessage
		if err = json.Unmarshal(b[:len(b)-1], &m); err != nil {
			err = fmt.Errorf("devtools message %.200q: %w", b, err)
			break
		}
		if m.ID == 0 {
			c.events(m)
			continue
		}
		c.mu.Lock()
		ch := c.waiting[m.ID]
		delete(c.waiting, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		err = errors.New("the browser closed the devtools pipe")
	}
	c.mu.Lock()
	c.closed = err
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
	c.mu.Unlock()
}

// call sends method with params to the target session (or the browser
// when session is "") and decodes the answer's result into result (when
// not nil), waiting at most timeout.
func (c *cdp) call(session, method string, params, result any, timeout time.Duration) error {
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, c.closed)
	}
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMessage, 1)
	c.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err == nil {
		_, err = c.w.Write(append(b, 0))
	}
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, c.closed)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: devtools error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("%s: result %.200q: %w", method, m.Result, err)
			}
		}
		return nil
	case <-time.After(timeout):
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: no answer within %v", method, timeout)
	}
}

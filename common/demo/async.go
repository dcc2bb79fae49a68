package demo

import (
	"bufio"
	"io"
	"sync"
	"sync/atomic"
)

// AsyncQueue is how many writes an AsyncWriter holds before Write
// blocks: a few seconds of server messages.
const AsyncQueue = 256

// AsyncWriter moves the writes of a recording off the caller's
// goroutine: Write copies p into a recycled buffer and queues it; a
// goroutine of its own writes the queue through a bufio.Writer to the
// destination. Write blocks only when AsyncQueue writes are waiting (a
// disk far slower than the network). Errors are sticky and returned by
// the next Write and by Close.
type AsyncWriter struct {
	dst   io.Writer
	queue chan []byte
	free  chan []byte
	done  chan struct{}

	mu  sync.Mutex
	err error

	closeOnce sync.Once
	closed    atomic.Bool
	closeErr  error
}

// NewAsyncWriter starts writing to dst, which Close closes if it is an
// io.Closer.
func NewAsyncWriter(dst io.Writer) *AsyncWriter {
	a := &AsyncWriter{
		dst:   dst,
		queue: make(chan []byte, AsyncQueue),
		free:  make(chan []byte, AsyncQueue),
		done:  make(chan struct{}),
	}
	go a.loop()
	return a
}

func (a *AsyncWriter) loop() {
	defer close(a.done)
	bw := bufio.NewWriterSize(a.dst, 64<<10)
	for b := range a.queue {
		if a.Err() == nil {
			if _, err := bw.Write(b); err != nil {
				a.setErr(err)
			}
		}
		select {
		case a.free <- b[:0]:
		default:
		}
		if len(a.queue) == 0 && a.Err() == nil {
			if err := bw.Flush(); err != nil {
				a.setErr(err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		a.setErr(err)
	}
}

func (a *AsyncWriter) setErr(err error) {
	a.mu.Lock()
	if a.err == nil {
		a.err = err
	}
	a.mu.Unlock()
}

// Err returns the first error met writing.
func (a *AsyncWriter) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Write queues a copy of p. It must not be called concurrently with
// Close.
func (a *AsyncWriter) Write(p []byte) (int, error) {
	if a.closed.Load() {
		return 0, ErrWriterDone
	}
	if err := a.Err(); err != nil {
		return 0, err
	}
	var b []byte
	select {
	case b = <-a.free:
	default:
	}
	b = append(b, p...)
	a.queue <- b
	return len(p), nil
}

// Close writes what is queued, flushes, closes the destination if it is
// an io.Closer, and returns the first error.
func (a *AsyncWriter) Close() error {
	a.closeOnce.Do(func() {
		a.closed.Store(true)
		close(a.queue)
		<-a.done
		if c, ok := a.dst.(io.Closer); ok {
			if err := c.Close(); err != nil {
				a.setErr(err)
			}
		}
		a.closeErr = a.Err()
	})
	return a.closeErr
}

package client

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"

	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/maps/arenas"
	"tremor/net/cmdargs"
)

// Map download (docs/download.md): a client whose gamestate names a map
// it lacks, or has in another version, asks the server for it with the
// reliable command "download NAME", and from then on puts
// proto.DownloadServerID in its headers, so that the server does not
// enter it into the game. The server sends proto.SvcDownload blocks:
// block 0 the header (name, size, checksum), then the data in order; the
// client acknowledges each block it takes with "nextdl N" and ignores a
// block out of order (the server goes back to the first unacknowledged
// block after a second without progress). With every byte in, the file
// must parse and have the announced checksum; it is then written to the
// map directory's downloads folder under its name and checksum
// (mapstore.go), and "donedl" asks the server for the gamestate again,
// which now finds the map. A server whose
// download places are all taken answers "dlwait MSEC": the client stays
// connected and asks again after that long (DownloadStatus.Waiting).

// Download limits of the client.
const (
	// DownloadStallTimeout ends a download that takes no new block for
	// this long: a server that keeps the connection alive but sends
	// nothing useful.
	DownloadStallTimeout = 15 * time.Second
	// DownloadMaxTime is the most time one connection spends
	// downloading, all its downloads together (waits for a place
	// included): a server that restarts the download, under the same
	// name or others, cannot keep the client downloading for ever. Time
	// in the game between downloads does not count.
	DownloadMaxTime = 10 * time.Minute
	// MaxConnectionDownloads is the most maps one connection saves, and
	// MaxConnectionDownloadBytes × cl_maxDownloadSize the most bytes its
	// downloads receive: a server cannot keep the client receiving by
	// naming map after map. What stays on disk is bounded for all
	// connections together (MaxStoredDownloads, MaxStoredDownloadBytes).
	MaxConnectionDownloads     = 4
	MaxConnectionDownloadBytes = 4
	// DefaultMaxDownloadSize is cl_maxDownloadSize's default: the
	// largest map file there is.
	DefaultMaxDownloadSize = proto.MaxDownloadSize
	// MinDownloadRetry and MaxDownloadRetry bound the wait a server's
	// "dlwait" asks for before the client asks for the map again.
	MinDownloadRetry = time.Second
	MaxDownloadRetry = 30 * time.Second
)

// DownloadStatus is the progress of a map download, for a progress bar.
type DownloadStatus struct {
	Name  string // the map (control characters escaped: safetext.Line)
	Got   int    // bytes received
	Total int    // bytes of the file; 0 until the server's header arrives
	// BytesPerSec is the average speed since the download started.
	BytesPerSec int
	// TimeLeft is the time the rest takes at that speed; -1 when unknown.
	TimeLeft time.Duration
	// Done: the file is in, checked and saved; the client waits for the
	// gamestate.
	Done bool
	// Waiting: the server's download places are taken; the client asks
	// again later ("waiting for a download slot").
	Waiting bool
}

// download is the state of the map download in progress.
type download struct {
	name     string
	checksum uint32 // the gamestate's
	started  int32  // realtime
	progress int32  // realtime of the last block taken
	header   bool   // block 0 taken
	size     int32
	blocks   int32 // data blocks
	next     int32 // the block expected next
	data     []byte
	ack      int32 // the block to acknowledge
	ackDue   bool  // an acknowledgement has to go
	ackSend  bool  // an acknowledgement was queued: send a packet now
	done     bool  // saved; "donedl" sent
	waiting  bool  // the server said dlwait: ask again at retryAt
	retryAt  int32 // realtime
}

// downloadUsage is what a connection's downloads used, for the limits
// that hold for all of them (connection.dlUsed; a new connection starts
// at zero).
type downloadUsage struct {
	spent  int32 // milliseconds spent downloading
	active bool  // a download runs: the time since at counts
	at     int32 // realtime spent was last brought up to date
	maps   int   // maps saved
	bytes  int64 // file bytes received, restarted downloads included
}

// Download returns the progress of the map download in progress, and
// false when there is none.
func (c *Client) Download() (DownloadStatus, bool) {
	dl := c.conn.dl
	if dl == nil || c.state < Connected {
		return DownloadStatus{}, false
	}
	s := DownloadStatus{Name: safetext.Line(dl.name), Got: len(dl.data), Total: int(dl.size), TimeLeft: -1, Done: dl.done, Waiting: dl.waiting}
	if ms := c.realtime - dl.started; ms > 0 {
		s.BytesPerSec = int(int64(s.Got) * 1000 / int64(ms))
	}
	if s.BytesPerSec > 0 && s.Total > 0 {
		s.TimeLeft = time.Duration(s.Total-s.Got) * time.Second / time.Duration(s.BytesPerSec)
	}
	return s, true
}

// errDownload marks the errors that end a download, and the connection.
var errDownload = errors.New("client: map download")

// canDownload says why the map a gamestate names cannot be downloaded,
// or "" if it can.
func (c *Client) cannotDownload(name string) string {
	switch {
	case c.playback:
		return "playing a demo"
	case c.cfg.NoDownload:
		return "downloads are off (cl_allowDownload 0)"
	case c.cfg.MapDir == "":
		return "no map directory to download into"
	}
	if err := arenas.CheckName(name); err != nil {
		return "the server names a map that is not a plain file name: " + strconv.Quote(name)
	}
	return ""
}

// startDownload asks the server for map name, whose checksum the
// gamestate announced, if the connection's download limits allow one
// more.
func (c *Client) startDownload(name string, checksum uint32) error {
	c.downloadClock(true)
	if n := c.conn.dlUsed.maps; n >= MaxConnectionDownloads {
		return fmt.Errorf("%w: the server asks for map %s after %d maps downloaded on this connection, the most there may be",
			errDownload, name, n)
	}
	c.conn.dl = &download{name: name, checksum: checksum, started: c.realtime, progress: c.realtime}
	if err := c.AddReliableCommand("download " + cmdargs.Quote(name)); err != nil {
		return fmt.Errorf("%w: asking for %s: %w", errDownload, name, err)
	}
	c.logf("downloading map %s from the server", name)
	return nil
}

// downloadClock brings the time the connection spent downloading up to
// date, and says whether a download runs from now on.
func (c *Client) downloadClock(active bool) {
	u := &c.conn.dlUsed
	if u.active && c.realtime-u.at > 0 {
		u.spent += c.realtime - u.at
	}
	u.active, u.at = active, c.realtime
}

// downloadWait takes the server's "dlwait MSEC": its download places are
// taken, the client is to ask again after MSEC milliseconds (bounded by
// MinDownloadRetry and MaxDownloadRetry). Meanwhile no block is due, so
// the no-progress limit waits too; DownloadMaxTime does not.
func (c *Client) downloadWait(arg string) {
	dl := c.conn.dl
	if dl == nil || dl.header || dl.done || c.state != Connected {
		return // not waiting for a download to start
	}
	ms, err := strconv.Atoi(arg)
	if err != nil {
		ms = 0
	}
	wait := min(max(time.Duration(ms)*time.Millisecond, MinDownloadRetry), MaxDownloadRetry)
	dl.waiting, dl.retryAt = true, c.realtime+int32(wait.Milliseconds())
	c.logf("map %s: waiting for a download slot (the server's are taken); asking again in %v", dl.name, wait)
}

// downloadBlock takes one SvcDownload block (CL_ParseDownload). A block
// that breaks the rules ends the connection; a duplicate is acknowledged
// again; one out of order is ignored (the server goes back to the first
// block not acknowledged).
func (c *Client) downloadBlock(d *proto.Download) error {
	dl := c.conn.dl
	if dl == nil || dl.done {
		c.stats.DownloadBlocksIgnored++ // not asked for, or late
		return nil
	}
	if d.Block == 0 {
		if dl.header {
			if d.Name != dl.name || d.Size != dl.size || d.Checksum != dl.checksum {
				return fmt.Errorf("%w: the server changed the header of %s", errDownload, dl.name)
			}
			c.stats.DownloadBlocksIgnored++
			c.ackDownload(dl.next - 1)
			return nil
		}
		switch {
		case d.Name != dl.name:
			return fmt.Errorf("%w: asked for map %s, the server sends %s", errDownload, dl.name, strconv.Quote(d.Name))
		case int(d.Size) > c.cfg.MaxDownloadSize:
			return fmt.Errorf("%w: map %s is %d bytes, more than cl_maxDownloadSize %d", errDownload, dl.name, d.Size, c.cfg.MaxDownloadSize)
		case d.Checksum != dl.checksum:
			return fmt.Errorf("%w: the server sends map %s with checksum %d, its gamestate announced %d", errDownload, dl.name, d.Checksum, dl.checksum)
		case c.conn.dlUsed.bytes+int64(d.Size) > int64(MaxConnectionDownloadBytes*c.cfg.MaxDownloadSize):
			return fmt.Errorf("%w: map %s (%d bytes) after %d bytes downloaded on this connection would pass %d × cl_maxDownloadSize",
				errDownload, dl.name, d.Size, c.conn.dlUsed.bytes, MaxConnectionDownloadBytes)
		}
		dl.header, dl.size, dl.blocks, dl.next = true, d.Size, proto.DownloadBlocks(d.Size), 1
		dl.data = make([]byte, 0, d.Size)
		dl.progress = c.realtime
		c.ackDownload(0)
		return nil
	}
	switch {
	case dl.header && d.Block > dl.blocks:
		return fmt.Errorf("%w: block %d of map %s, which has %d", errDownload, d.Block, dl.name, dl.blocks)
	case !dl.header:
		c.stats.DownloadBlocksIgnored++ // the header was lost
		return nil
	case d.Block > dl.next:
		// Out of order: an earlier block was lost. Acknowledging the last
		// one held again tells the server at once (it goes back without
		// waiting a second).
		c.stats.DownloadBlocksIgnored++
		c.ackDownload(dl.next - 1)
		return nil
	case d.Block < dl.next:
		c.stats.DownloadBlocksIgnored++ // sent again before our acknowledgement arrived
		c.ackDownload(dl.next - 1)
		return nil
	}
	want := proto.DownloadBlockSize
	if d.Block == dl.blocks {
		want = int(dl.size) - int(dl.blocks-1)*proto.DownloadBlockSize
	}
	if len(d.Data) != want {
		return fmt.Errorf("%w: block %d of map %s holds %d bytes, not %d", errDownload, d.Block, dl.name, len(d.Data), want)
	}
	dl.data = append(dl.data, d.Data...)
	c.conn.dlUsed.bytes += int64(len(d.Data))
	dl.next++
	dl.progress = c.realtime
	c.stats.DownloadBlocks++
	c.ackDownload(d.Block)
	if d.Block == dl.blocks {
		return c.finishDownload(dl)
	}
	return nil
}

// ackDownload notes that block n is to be acknowledged.
func (c *Client) ackDownload(n int32) {
	c.conn.dl.ack, c.conn.dl.ackDue = n, true
}

// finishDownload checks the file received, saves it and asks the server
// for the gamestate again.
func (c *Client) finishDownload(dl *download) error {
	m, err := tilemap.Parse(dl.name+".map", dl.data)
	if err != nil {
		return fmt.Errorf("%w: map %s from the server does not load: %w", errDownload, dl.name, err)
	}
	if m.Checksum != dl.checksum {
		return fmt.Errorf("%w: map %s from the server has checksum %d, not the %d announced", errDownload, dl.name, m.Checksum, dl.checksum)
	}
	if err := saveDownload(c.cfg.MapDir, dl.name, dl.checksum, dl.data); err != nil {
		return fmt.Errorf("%w: saving map %s: %w", errDownload, dl.name, err)
	}
	c.maps[dl.name] = m
	c.conn.dlUsed.maps++
	c.downloadClock(false)
	dl.done = true
	secs := float64(c.realtime-dl.started) / 1000
	c.logf("map %s downloaded: %d bytes in %.1f s, saved in %s", dl.name, len(dl.data), secs, filepath.Join(c.cfg.MapDir, DownloadDir))
	if err := c.AddReliableCommand("donedl"); err != nil {
		return fmt.Errorf("%w: %w", errDownload, err)
	}
	dl.ackSend = true
	return nil
}

// downloadFrame sends the acknowledgement due and ends a download that
// stalls or takes too long; it runs every frame before the packet goes.
func (c *Client) downloadFrame() {
	dl := c.conn.dl
	c.downloadClock(dl != nil && !dl.done && c.state == Connected)
	if dl == nil || c.state != Connected {
		return
	}
	if dl.ackDue && c.AddReliableCommand("nextdl "+strconv.Itoa(int(dl.ack))) == nil {
		dl.ackDue, dl.ackSend = false, true
	}
	if dl.done {
		return
	}
	if dl.waiting && c.realtime-dl.retryAt >= 0 &&
		c.AddReliableCommand("download "+cmdargs.Quote(dl.name)) == nil {
		dl.waiting, dl.progress = false, c.realtime
	}
	switch {
	case !dl.waiting && time.Duration(c.realtime-dl.progress)*time.Millisecond > DownloadStallTimeout:
		c.drop(DropError, fmt.Sprintf("map download: no progress on %s for %v (%d of %d bytes)",
			dl.name, DownloadStallTimeout, len(dl.data), dl.size))
		return
	case time.Duration(c.conn.dlUsed.spent)*time.Millisecond > DownloadMaxTime:
		c.drop(DropError, fmt.Sprintf("map download: %s not finished after %v of downloads on this connection (%d of %d bytes)",
			dl.name, DownloadMaxTime, len(dl.data), dl.size))
	}
}

// downloadServerID returns the server id the client's headers carry.
func (c *Client) headerServerID() int32 {
	if c.conn.dl != nil && c.state == Connected {
		return proto.DownloadServerID(c.active.serverID)
	}
	return c.active.serverID
}

// isMissing reports whether err says a map file does not exist.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }

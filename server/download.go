package server

import (
	"strconv"

	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/srclimit"
)

// Map download, the server's side (docs/download.md; Quake III's
// SV_BeginDownload_f, SV_NextDownload_f, SV_WriteDownloadToClient). A
// client whose gamestate names a map it lacks sends "download NAME" in
// messages whose header carries proto.DownloadServerID: it stays primed,
// out of the game. Instead of snapshots it gets download messages: the
// unacknowledged reliable commands and one proto.SvcDownload block each,
// block 0 the header (name, size, checksum), blocks 1..N the file. At
// most DownloadWindow blocks go past the last one the client
// acknowledged ("nextdl N"); when the window is used up and a second
// passes with no progress, sending starts again from the first block not
// acknowledged (go-back-N; with a window of 1, stop-and-wait), and at
// once when the client repeats its last acknowledgement, which it does
// for a block it cannot take because one before it was lost. The bytes
// go at min(the client's rate, sv_dlRate). At most MaxDownloads clients
// download at once, and one per source (an IPv4 address, an IPv6 /64);
// a client that finds no place free is told "dlwait MSEC" and asks again
// later, still connected. Each download must end within its size at
// MinDownloadRate plus DownloadSlackMsec, counted from the first start
// for the level on the connection, and a connection starts at most
// MaxDownloadStarts downloads: a client cannot hold a place for ever,
// whether it acknowledges slowly or starts over. "donedl" ends the
// download and the gamestate is sent again: the client now has the map.

// Download limits of the server.
const (
	// DownloadWindow is how many blocks may be unacknowledged. With
	// 1 KiB blocks and a 100 ms round trip, stop-and-wait (1) moves
	// 10 KiB/s whatever the rate; 8 blocks move up to 80 KiB/s, enough
	// for the default rates (docs/download.md).
	DownloadWindow = 8
	// DownloadResendMsec is how long the server waits, with the window
	// used up and no acknowledgement moving it, before it sends again
	// from the first unacknowledged block (Quake III: 1 s).
	DownloadResendMsec = 1000
	// MaxDownloads is the most clients downloading at once, so that
	// downloads cannot take the whole uplink; a further request waits
	// (DownloadRetryMsec).
	MaxDownloads = 4
	// DownloadRetryMsec is how long a client that finds every download
	// place taken, or one taken by its own source, waits before it asks
	// again ("dlwait" tells it).
	DownloadRetryMsec = 5000
	// MinDownloadRate and DownloadSlackMsec bound a download's time: a
	// file of n bytes must be acknowledged in full within
	// n*1000/MinDownloadRate + DownloadSlackMsec milliseconds of the
	// first start for the level on the connection (542 s for the largest
	// map), or the client is dropped.
	MinDownloadRate   = 2048
	DownloadSlackMsec = 30_000
	// MaxDownloadStarts is the most downloads one connection may start
	// (a stopdl and a download again count as another).
	MaxDownloadStarts = 8
	// DownloadStallMsec ends a download whose client acknowledges
	// nothing new for this long, freeing its place.
	DownloadStallMsec = 30_000
	// DownloadFastResendMsec: an acknowledgement that repeats the last
	// one, while later blocks are out, means one was lost (the client
	// acknowledges again each block it cannot take); the server goes back
	// at once, but at most once in this many milliseconds, so that the
	// repeats one loss causes bring one resend.
	DownloadFastResendMsec = 250
)

// download is one client's download in progress.
type download struct {
	serverID int32 // the level whose map it sends
	name     string
	file     []byte
	checksum uint32
	blocks   int32 // data blocks; block numbers run 0..blocks
	acked    int32 // the client has every block below this one
	rewound  int32 // real time of the last go-back on a repeated acknowledgement
	xmit     int32 // the next block to send
	sent     int32 // every block below this one has been sent
	lastSend int32 // real time the last block went
	progress int32 // real time acked last moved
	credit   int   // bytes the rate allows now
	creditAt int32 // real time credit was last topped up
	deadline int32 // real time by which it must be over
	done     bool  // every block acknowledged
}

// dlHistory is what one connection's downloads used; it lives as long as
// the connection (client.resetConnection clears it), so starting over
// restores nothing.
type dlHistory struct {
	serverID int32 // the level first counts for
	first    int32 // real time of the first download start for that level
	starts   int   // downloads started on the connection
}

// downloadMsec is the most time a download of size bytes may take.
func downloadMsec(size int) int32 {
	return int32(int64(size)*1000/MinDownloadRate) + DownloadSlackMsec
}

// MapChecksum returns the checksum of the map being played, in decimal
// (the map-checksum configstring's value), or "" with no map.
func (s *Server) MapChecksum() string {
	if s.sv == nil {
		return ""
	}
	return strconv.FormatUint(uint64(s.sv.m.Checksum), 10)
}

// downloadCommand runs download, nextdl, donedl and stopdl from c. They
// count only in a message whose header said the client is downloading
// the current map, from a client primed but not in the game; otherwise
// they are ignored.
func (s *Server) downloadCommand(c *client, name string) {
	if s.sv == nil || !c.dlHeader || c.state != StatePrimed {
		c.stats.downloadCommandsIgnored++
		return
	}
	switch name {
	case "download":
		s.beginDownload(c, s.args.Argv(1))
	case "nextdl":
		n, ok := atoiStrict(s.args.Argv(1))
		if !ok || c.dl == nil || s.args.Argc() != 2 {
			c.stats.downloadCommandsIgnored++
			return
		}
		c.dl.ack(int32(min(n, proto.MaxDownloadBlocks+1)), s.svs.now)
	case "stopdl":
		c.dl = nil
	case "donedl":
		// The client has checked and saved the file: whether its last
		// acknowledgement arrived or not, the gamestate goes again.
		if c.dl == nil {
			c.stats.downloadCommandsIgnored++
			return
		}
		c.dl = nil
		c.dlDone = s.sv.serverID
		s.sendGamestate(c)
	}
}

// beginDownload starts sending c the current map, if it asked for that
// map and the server allows it; a refusal drops c with the reason. A
// client that finds no place free is told to ask again later.
func (s *Server) beginDownload(c *client, name string) {
	lv := s.sv
	if c.dl != nil && c.dl.serverID == lv.serverID {
		return // one download per client: a resent request changes nothing
	}
	c.dl = nil // one of the level before a map change
	lack := "server has map " + lv.name + " which you lack; "
	if name != lv.name {
		s.dropClient(c, "asked to download map "+strconv.Quote(name)+"; the server runs "+lv.name)
		return
	}
	if !s.cfg.AllowDownload {
		s.dropClient(c, lack+"downloads disabled")
		return
	}
	if c.dlHist.starts >= MaxDownloadStarts {
		s.dropClient(c, lack+"too many download requests ("+strconv.Itoa(MaxDownloadStarts)+" on one connection)")
		return
	}
	if why := s.downloadBusy(c); why != "" {
		c.stats.downloadsDeferred++
		s.logf("client %d %s waits for a download place: %s", c.num, c.name, why)
		s.addServerCommand(c, "dlwait "+strconv.Itoa(DownloadRetryMsec))
		return
	}
	file := s.mapFile()
	if file == nil {
		s.dropClient(c, lack+"the server cannot send it")
		return
	}
	h := &c.dlHist
	if h.serverID != lv.serverID {
		h.serverID, h.first = lv.serverID, s.svs.now
	}
	h.starts++
	c.dl = &download{
		serverID: lv.serverID, name: lv.name, file: file, checksum: lv.m.Checksum,
		blocks:   proto.DownloadBlocks(int32(len(file))),
		progress: s.svs.now, creditAt: s.svs.now,
		deadline: h.first + downloadMsec(len(file)),
	}
	c.dlDone = 0
	c.stats.downloads++
	s.logf("client %d %s downloads map %s (%d bytes)", c.num, c.name, lv.name, len(file))
}

// downloadBusy says why c cannot start a download now, or "" if it can:
// every place is taken, or another client of its source (but loopback)
// downloads.
func (s *Server) downloadBusy(c *client) string {
	src, local := srclimit.Source(c.chan_.Remote()), isLocal(c.chan_.Remote())
	n := 0
	for i := range s.svs.clients {
		o := &s.svs.clients[i]
		if o.dl == nil || o.state != StatePrimed || o.dl.serverID != s.sv.serverID || o.dl.done {
			continue
		}
		n++
		if o != c && !local && o.chan_ != nil && srclimit.Source(o.chan_.Remote()) == src {
			return "another client of " + src.String() + " downloads"
		}
	}
	if n >= MaxDownloads {
		return strconv.Itoa(n) + " downloads in progress"
	}
	return ""
}

// mapFile returns the bytes of the current map's file, shared by every
// download of the level, or nil if the file was too large to keep.
func (s *Server) mapFile() []byte {
	if s.sv.file == nil {
		s.logf("map %s cannot be downloaded: larger than %d bytes", s.sv.name, proto.MaxDownloadSize)
	}
	return s.sv.file
}

// loadLevelMap loads map name from dir (or the embedded arenas) for a
// new level: the map, and the file's bytes when they are small enough to
// download (nil otherwise). Downloads send these bytes, those the level
// was parsed from: no download reads the disk on the server's frame, and
// a file changed on disk since is never sent for the map in play.
func loadLevelMap(dir, name string) (*tilemap.Map, []byte, error) {
	data, err := arenas.ReadFrom(dir, name)
	if err != nil {
		return nil, nil, err
	}
	m, err := tilemap.Parse(name+".map", data)
	if err != nil {
		return nil, nil, err
	}
	if len(data) > proto.MaxDownloadSize {
		data = nil
	}
	return m, data, nil
}

// downloads counts the downloads of the current level in progress.
func (s *Server) downloads() int {
	n := 0
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.dl != nil && c.state == StatePrimed && c.dl.serverID == s.sv.serverID && !c.dl.done {
			n++
		}
	}
	return n
}

// ack takes "nextdl n": the client has block n and every one before.
// An acknowledgement of a block not sent yet is ignored.
func (dl *download) ack(n int32, now int32) {
	if n+1 == dl.acked && dl.xmit > dl.acked && now-dl.rewound >= DownloadFastResendMsec {
		dl.xmit, dl.rewound = dl.acked, now // a repeat: a block was lost
		return
	}
	if n < dl.acked || n >= dl.sent {
		return
	}
	if n+1 > dl.acked {
		dl.acked = n + 1
		dl.progress = now
		dl.xmit = max(dl.xmit, dl.acked)
	}
	if dl.acked > dl.blocks {
		dl.done = true
	}
}

// nextBlock returns the block to send now, if the window allows one:
// the next in order, or, with the window used up and DownloadResendMsec
// passed since the last block went, the first unacknowledged one again.
func (dl *download) nextBlock(now int32) (int32, bool) {
	if dl.done {
		return 0, false
	}
	if dl.xmit > dl.blocks || dl.xmit >= dl.acked+DownloadWindow {
		if now-dl.lastSend < DownloadResendMsec {
			return 0, false
		}
		dl.xmit = dl.acked // go back
	}
	b := dl.xmit
	dl.xmit++
	dl.sent = max(dl.sent, dl.xmit)
	dl.lastSend = now
	return b, true
}

// block returns SvcDownload block n.
func (dl *download) block(n int32) proto.Download {
	if n == 0 {
		return proto.Download{Name: dl.name, Size: int32(len(dl.file)), Checksum: dl.checksum}
	}
	start := int(n-1) * proto.DownloadBlockSize
	end := min(start+proto.DownloadBlockSize, len(dl.file))
	return proto.Download{Block: n, Data: dl.file[start:end]}
}

// downloadRate returns the bytes per second c's download may use:
// sv_dlRate, and no more than the client's rate.
func (s *Server) downloadRate(c *client) int {
	return max(min(s.clientRate(c), s.cfg.DownloadRate*1024), 1)
}

// sendDownloadMessages sends c, a client downloading, the blocks its
// window and rate allow, one a message, and a message without a block
// every NotActiveSnapshotMsec when none goes (its reliable commands and
// acknowledgements must flow). It replaces the snapshots of a client not
// in the game.
func (s *Server) sendDownloadMessages(c *client) {
	dl := c.dl
	now := s.svs.now
	if dl.serverID != s.sv.serverID {
		c.dl = nil // a map change: the client gets the new gamestate
		return
	}
	if !dl.done && now-dl.progress > DownloadStallMsec {
		s.dropClient(c, "map download stalled")
		return
	}
	if now-dl.deadline > 0 {
		s.dropClient(c, "map download too slow ("+strconv.Itoa(len(dl.file))+" bytes not done in "+
			strconv.Itoa(int(downloadMsec(len(dl.file))/1000))+" s)")
		return
	}
	rate := s.downloadRate(c)
	burst := rate/10 + proto.DownloadBlockSize + HeaderRateBytes // 100 ms of rate, and a block
	if now-dl.creditAt > 0 {
		dl.credit = int(min(int64(dl.credit)+int64(now-dl.creditAt)*int64(rate)/1000, int64(burst)))
	}
	dl.creditAt = now
	if c.chan_.HasUnsentFragments() {
		return
	}
	sent := false
	for dl.credit > 0 && c.state == StatePrimed && c.dl == dl {
		n, ok := dl.nextBlock(now)
		if !ok {
			break
		}
		b := dl.block(n)
		size, ok := s.sendDownloadMessage(c, &b)
		if !ok {
			return
		}
		dl.credit -= size + HeaderRateBytes
		c.stats.downloadBytes += int64(len(b.Data))
		sent = true
	}
	if sent {
		c.nextSnapshotTime = s.svs.time + NotActiveSnapshotMsec
		return
	}
	if s.svs.time-c.nextSnapshotTime >= 0 {
		if size, ok := s.sendDownloadMessage(c, nil); ok {
			dl.credit -= size + HeaderRateBytes
		}
		c.nextSnapshotTime = s.svs.time + NotActiveSnapshotMsec
	}
}

// sendDownloadMessage sends c one message: its unacknowledged reliable
// commands and block b (none if nil). It returns the message's size,
// and false if c was dropped.
func (s *Server) sendDownloadMessage(c *client, b *proto.Download) (int, bool) {
	s.flushCommands(c)
	if c.state != StatePrimed {
		return 0, false
	}
	w := s.messageTo(c)
	proto.WriteReliableAck(w, c.lastClientCommand)
	s.writeServerCommands(c, w, len(s.msgBuf)-2*proto.DownloadBlockSize-64)
	if b != nil {
		proto.WriteDownload(w, b)
	}
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		s.dropClient(c, "server message overflow")
		return 0, false
	}
	data := w.Bytes()
	if !s.transmit(c, data, c.scrambleNext()) {
		return 0, false
	}
	return len(data), true
}

// Package demo is Tremor's demo file format: a recording of the server
// messages one client received, as Quake III's .dm_68 files were, with
// key frames and an index added so that a player can seek. It reads and
// writes the container only; the messages inside are server messages
// that client parses exactly as it parses the network's.
//
// # Layout
//
// All integers are little-endian.
//
//	header   "TRDM"  format version u16  protocol version u16
//	         client number i32  date i64 (Unix seconds, UTC)
//	         map name: length u8, bytes (at most MaxMapName)
//	records  sequence i32  length i32  payload (length bytes)
//	end      -1 -1
//	trailer  index offset i64  "TRDX"        (absent in a truncated file)
//
// A record's sequence says what it is:
//
//	>= 0  a server message: its netchan sequence and its body (after the
//	      netchan header, unscrambled), at most MaxMessageLen bytes
//	 -2   a key frame (RecordKeyFrame), at most MaxKeyFrameLen bytes
//	 -3   the index (RecordIndex), written once, just before the end
//
// A key frame's payload is what a parser needs to start there:
//
//	server time i32  message number i32  part count u16
//	parts: sequence i32  length i32  bytes   (count times)
//
// Each part is a whole server message to parse at that sequence: the
// first a synthetic gamestate (configstrings, baselines, the server
// command sequence, client number, checksum feed), the others the
// snapshots of the client's ring that later messages may be delta-coded
// from, oldest first, the first one full and each other delta-coded
// from the one before. Server time and message number are those of the
// newest snapshot.
//
// The index's payload lists every key frame:
//
//	first server time i32  last server time i32  count u32
//	entries: server time i32  message number i32  offset i64  (count times)
//
// where offset is the file offset of the key frame record. The first
// record after the header is always a key frame. A file without trailer
// (a recording cut short) still plays: its key frames are found by
// scanning the records (Reader.Scan).
//
// Reader takes hostile input: every length is bounded before anything is
// allocated, every offset is checked against the file's size, and a bad
// file gives an error, never a panic.
package demo

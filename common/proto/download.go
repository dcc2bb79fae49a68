package proto

import (
	"errors"
	"fmt"

	"tremor/net/msg"
)

// SvcDownload carries one block of a map download (Quake III's
// svc_download). It is numbered after SvcEOF so that the codes of the
// older operations, and the demos that hold them, stay as they were.
const SvcDownload = SvcEOF + 1

// Download limits (docs/download.md).
const (
	// DownloadBlockSize is the most file bytes one data block carries
	// (Quake III's MAX_DOWNLOAD_BLKSIZE): one block and its message fit
	// one packet, so a lost packet costs one block.
	DownloadBlockSize = 1024
	// MaxDownloadSize is the largest file a download carries: the
	// largest map file tilemap reads (1 MiB).
	MaxDownloadSize = 1 << 20
	// MaxDownloadBlocks is the highest block number: block 0 is the
	// header, blocks 1..N the data.
	MaxDownloadBlocks = (MaxDownloadSize + DownloadBlockSize - 1) / DownloadBlockSize
)

// DownloadServerID is the server id a client puts in its messages'
// header while it downloads the map of the gamestate whose server id is
// id: the server runs its reliable commands (download, nextdl, donedl)
// but does not enter it into the game, whatever the message carries.
// Server ids are positive, so -id is never a real one.
func DownloadServerID(id int32) int32 { return -id }

// Download is one SvcDownload operation. Block 0 is the header: the map's
// Name, its Size in bytes and its Checksum (tilemap's); blocks 1 to
// DownloadBlocks(Size) carry the file's bytes in order, each
// DownloadBlockSize bytes but the last.
type Download struct {
	Block    int32
	Name     string // block 0
	Size     int32  // block 0
	Checksum uint32 // block 0
	Data     []byte // blocks 1..
}

// DownloadBlocks returns how many data blocks a file of size bytes
// takes.
func DownloadBlocks(size int32) int32 {
	return (size + DownloadBlockSize - 1) / DownloadBlockSize
}

// Errors ReadDownload sticks on the reader.
var (
	ErrDownloadBlock = errors.New("proto: download block number out of range")
	ErrDownloadSize  = errors.New("proto: download size out of range")
)

// WriteDownload writes d as an SvcDownload.
func WriteDownload(w *msg.Writer, d *Download) {
	w.WriteUint8(SvcDownload)
	w.WriteLong(d.Block)
	if d.Block == 0 {
		w.WriteString(d.Name)
		w.WriteLong(d.Size)
		w.WriteLong(int32(d.Checksum))
		return
	}
	w.WriteShort(int16(len(d.Data)))
	w.WriteData(d.Data)
}

// ReadDownload reads the body of an SvcDownload into d; a data block's
// bytes go in buf (DownloadBlockSize long) and d.Data is a slice of it.
// A block number outside 0..MaxDownloadBlocks, a size outside
// 1..MaxDownloadSize, or a data length outside 1..DownloadBlockSize sets
// the reader's error.
func ReadDownload(r *msg.Reader, d *Download, buf *[DownloadBlockSize]byte) {
	*d = Download{Block: r.ReadLong()}
	if r.Err() != nil {
		return
	}
	if d.Block < 0 || d.Block > MaxDownloadBlocks {
		r.Fail(fmt.Errorf("%w: %d", ErrDownloadBlock, d.Block))
		return
	}
	if d.Block == 0 {
		d.Name = r.ReadString()
		d.Size = r.ReadLong()
		d.Checksum = uint32(r.ReadLong())
		if r.Err() == nil && (d.Size < 1 || d.Size > MaxDownloadSize) {
			r.Fail(fmt.Errorf("%w: %d bytes", ErrDownloadSize, d.Size))
		}
		return
	}
	n := int(r.ReadShort())
	if r.Err() != nil {
		return
	}
	if n < 1 || n > DownloadBlockSize {
		r.Fail(fmt.Errorf("%w: block %d holds %d bytes", ErrDownloadSize, d.Block, n))
		return
	}
	if r.RemainingBits() < n {
		// Even Huffman-coded, a byte takes at least one bit: do not
		// read past a message that cannot hold the block.
		r.Fail(fmt.Errorf("%w: block %d of %d bytes runs past the message", ErrDownloadSize, d.Block, n))
		return
	}
	r.ReadData(buf[:n])
	d.Data = buf[:n]
}

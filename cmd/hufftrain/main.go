// Command hufftrain trains Tremor's static Huffman table.
//
// The Huffman coder in net/msg codes the whole bytes of every in-band
// message with one static code built from a 256-entry frequency table,
// msg.DefaultFrequencies. hufftrain counts byte frequencies over captured
// message bodies and writes that table as Go source, so the code can be
// retrained on real Tremor traffic.
//
// A capture is the stream of bytes a msg.Writer passes to the Huffman
// coder, before coding: set Writer.Capture to collect it, and write the
// collected bytes to a file (one message or many per file; only the byte
// counts matter). Until real traffic exists, -synthetic generates
// snapshot-like and usercmd-like messages through the real delta codec.
//
// Usage:
//
//	hufftrain [flags] [capture files...]
//
//	-play D       capture a real match for D (e.g. 120s): a server on arena2
//	              on 127.0.0.1, -clients headless clients (default 8) and
//	              bots up to 16 players; counts what the server's Huffman
//	              coder is handed (-save FILE keeps the capture)
//	-synthetic N  add N synthetic messages (default 0)
//	-seed S       random seed of the synthetic messages
//	-o FILE       write the table as Go source to FILE (default: none)
//	-pkg NAME     package of the generated file (default msg)
//	-fields       print the delta field counters of the synthetic messages
//	              (msg.Table.WriteReport: changes and bits per field, and the
//	              field order the counts suggest)
//
// It always prints a report: symbols counted, their entropy, and the bits
// per byte and compression ratio of the current default code and of the
// code trained from the counts, over the counted bytes.
//
// The shipped table is trained on real traffic:
//
//	go run ./cmd/hufftrain -play 120s -o net/msg/hufftable.go
package main

import (
	"flag"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"strings"

	"tremor/net/msg"
)

func main() {
	synthetic := flag.Int("synthetic", 0, "number of synthetic messages to add")
	seed := flag.Uint64("seed", 1, "seed of the synthetic messages")
	out := flag.String("o", "", "write the frequency table as Go source to this file")
	pkg := flag.String("pkg", "msg", "package name of the generated file")
	fields := flag.Bool("fields", false, "print the field change counters of the synthetic tables")
	play := flag.Duration("play", 0, "capture a real match for this long: a server on arena2 with bots and headless clients on 127.0.0.1")
	clients := flag.Int("clients", 8, "headless clients of -play")
	save := flag.String("save", "", "write the bytes -play captured to this file (a capture for later runs)")
	flag.Parse()

	var freq [256]uint64
	for _, name := range flag.Args() {
		data, err := os.ReadFile(name)
		if err != nil {
			fatal(err)
		}
		for _, b := range data {
			freq[b]++
		}
	}
	if *play > 0 {
		data, err := Play("arena2", *clients, 16-*clients, *play)
		if err != nil {
			fatal(err)
		}
		if *save != "" {
			if err := os.WriteFile(*save, data, 0o644); err != nil {
				fatal(err)
			}
		}
		for _, b := range data {
			freq[b]++
		}
	}
	var stats msg.FieldStats // the synthetic messages' delta fields
	if *synthetic > 0 {
		for _, b := range Synthetic(*synthetic, *seed, &stats) {
			freq[b]++
		}
	}
	if *fields {
		for _, r := range []interface {
			WriteReport(io.Writer, *msg.FieldStats) error
		}{synthPlayerTable, synthEntityTable, synthCmdTable} {
			if err := r.WriteReport(os.Stdout, &stats); err != nil {
				fatal(err)
			}
		}
	}
	table := Scale(&freq)
	if err := Report(os.Stdout, &freq, &table); err != nil {
		fatal(err)
	}
	if *out != "" {
		src, err := Source(*pkg, &table, &freq)
		if err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*out, src, 0o644); err != nil {
			fatal(err)
		}
		fmt.Printf("wrote %s\n", *out)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "hufftrain:", err)
	os.Exit(1)
}

// Scale turns raw counts into a uint32 table, keeping proportions and
// giving every byte value at least 1.
func Scale(freq *[256]uint64) [256]uint32 {
	var max uint64
	for _, f := range freq {
		if f > max {
			max = f
		}
	}
	var t [256]uint32
	for i, f := range freq {
		v := f
		if max > 1<<30 {
			v = f * (1 << 30) / max
		}
		if v == 0 {
			v = 1
		}
		t[i] = uint32(v)
	}
	return t
}

// codedBits is the number of bits code spends on the counted bytes.
func codedBits(code *msg.Code, freq *[256]uint64) uint64 {
	var bits uint64
	for b, f := range freq {
		bits += f * uint64(code.Len(byte(b)))
	}
	return bits
}

// Report prints what the counts say and how well the current and the
// trained code compress them.
func Report(w *os.File, freq *[256]uint64, table *[256]uint32) error {
	var total uint64
	for _, f := range freq {
		total += f
	}
	if total == 0 {
		_, err := fmt.Fprintln(w, "no bytes counted (give capture files or -synthetic N)")
		return err
	}
	entropy := 0.0
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / float64(total)
			entropy -= p * math.Log2(p)
		}
	}
	trained, err := msg.NewCode(table)
	if err != nil {
		return err
	}
	cur := float64(codedBits(msg.DefaultCode, freq)) / float64(total)
	nw := float64(codedBits(trained, freq)) / float64(total)
	_, err = fmt.Fprintf(w, "bytes counted      %d\n"+
		"entropy            %.3f bits/byte\n"+
		"current code       %.3f bits/byte  ratio %.3f (coded/raw)\n"+
		"trained code       %.3f bits/byte  ratio %.3f (coded/raw)\n",
		total, entropy, cur, cur/8, nw, nw/8)
	return err
}

// Source renders the table as a Go file for package pkg.
func Source(pkg string, table *[256]uint32, freq *[256]uint64) ([]byte, error) {
	var total uint64
	for _, f := range freq {
		total += f
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by hufftrain; DO NOT EDIT.\n\npackage %s\n\n", pkg)
	fmt.Fprintf(&b, "// DefaultFrequencies is the byte frequency table the default Huffman code\n"+
		"// is built from, trained by cmd/hufftrain over %d bytes of message data.\n", total)
	b.WriteString("var DefaultFrequencies = [256]uint32{\n")
	for i := 0; i < 256; i += 8 {
		for j := i; j < i+8; j++ {
			fmt.Fprintf(&b, "%d, ", table[j])
		}
		fmt.Fprintf(&b, "// %#02x\n", i)
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}

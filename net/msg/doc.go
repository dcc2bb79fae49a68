// Package msg is Tremor's bit-level message buffer: the layer Quake III
// kept in msg.c and huffman.c.
//
// A message is written with a [Writer] and read with a [Reader]. Both work
// in one of two modes:
//
//   - [Raw]: byte-aligned little-endian values, for connectionless packets
//     (Quake III's "OOB" mode). Only 8-, 16- and 32-bit widths exist.
//   - [Huffman]: the bitstream mode of every in-band message. A value of n
//     bits is split into its n%8 low bits, written raw, and n/8 whole bytes,
//     each written as the static Huffman code of that byte (see [Code]).
//
// Bits are packed least-significant first within each byte.
//
// # Errors
//
// Neither side returns an error per call. A [Writer] that runs out of room,
// is asked for an invalid width or an over-long string sets a sticky error:
// nothing more is written, and the caller checks [Writer.Err] once before
// sending (an overflowed message is never sent). A [Reader] that reads past
// the end of its data, or meets malformed data, sets a sticky error and
// returns zero values from then on; every caller checks [Reader.Err] before
// acting on what it read, and drops the packet if it is set.
//
// # Delta codec
//
// [Table] describes a struct of 32-bit fields by a list of {name, bits}
// pairs (Quake III's netField_t) and delta-codes values of it in the three
// styles Quake III used: entity states, player states and usercmds.
package msg

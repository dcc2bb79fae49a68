// Package protospec keeps docs/protocol.md and the test vectors of
// docs/vectors in step with the code, so that the specification a new
// implementer reads cannot drift from what Tremor puts on the wire.
//
// Two things are generated from the code and checked by its tests:
//
//   - the field tables of EntityState, PlayerState and UserCmd (FieldTables),
//     written from bg's msg.Table values between marker comments of
//     docs/protocol.md (UpdateDocument), with the document's appendix of
//     the protocol's constants (constants_test.go).
//     TestFieldTablesMatchDocument fails when the document and the code
//     differ.
//   - the test vectors (Vectors): a connection between the real server
//     engine and a client written here with the codec (net/oob,
//     net/netchan, common/proto), once plain and once scrambled, once on
//     the acks carrier and once in frame sync (framesync.go), every
//     packet in hex with its decoding by internal/inspect, and the
//     scrambled bodies with their keys and texts, and the Huffman code of
//     every byte. TestVectorsMatch fails when the files of docs/vectors
//     differ from what the code produces.
//
// TestScrambleAsSpecified and TestHuffmanConstructionAsSpecified check
// the document's scrambling and Huffman construction against the code.
//
// After a deliberate protocol change, one command rewrites both:
//
//	go test ./internal/protospec -update     (or: make protodoc)
package protospec

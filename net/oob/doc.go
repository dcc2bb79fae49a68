// Package oob implements Quake III's connectionless ("out-of-band")
// packets and the queries and answers that travel in them (getinfo,
// getstatus, getchallenge, connect and their replies), and the master
// server protocol's (heartbeat, getservers, getserversExt and their
// responses: servers.go, docs/master.md). The command-line
// tokenizer is package net/cmdargs, info strings package net/infostr.
//
// A connectionless packet is the four bytes 0xFF 0xFF 0xFF 0xFF (the
// sequence number -1, which no netchan packet can carry) followed by an
// ASCII command line such as "getstatus 1234". The server and the client
// read the first line of the text, tokenize it with [cmdargs.Tokenize] and dispatch
// on the first token (see [Command]). The rest of the text belongs to the
// command: "statusResponse" carries an info string on its second line and
// one line per player after it.
//
// The formats are Quake III's, so existing Quake III query tools and server
// browsers can list a Tremor server.
package oob

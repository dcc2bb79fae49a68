// Package oob implements Quake III's connectionless ("out-of-band")
// packets and the text formats that travel in them: the command-line
// tokenizer, info strings and the server-browser queries.
//
// A connectionless packet is the four bytes 0xFF 0xFF 0xFF 0xFF (the
// sequence number -1, which no netchan packet can carry) followed by an
// ASCII command line such as "getstatus 1234". The server and the client
// read the first line of the text, tokenize it with [Tokenize] and dispatch
// on the first token (see [Command]). The rest of the text belongs to the
// command: "statusResponse" carries an info string on its second line and
// one line per player after it.
//
// Info strings are the \key\value\key\value lists Quake III uses for
// userinfo, serverinfo and query answers; see [ValueForKey] and
// [SetValueForKey].
//
// The formats are Quake III's, so existing Quake III query tools and server
// browsers can list a Tremor server. The tokenizer is general: the console
// and the server's client-command parser use it too.
package oob

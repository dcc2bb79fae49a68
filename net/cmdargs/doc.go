// Package cmdargs is Quake III's command-line tokenizer
// (Cmd_TokenizeString, Cmd_Argv): it splits a line into arguments,
// honouring double quotes and // and /* */ comments, with Quake III's
// limits (MaxStringChars, MaxStringTokens). Connectionless packets, the
// console, server and client commands all read their lines with it.
// [Quote] and [QuoteText] write the other way: a value as one token, and
// people's text inside a quoted argument.
package cmdargs

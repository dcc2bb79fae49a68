package oob

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// Connectionless command names, as Quake III spells them. Commands are
// matched ignoring case. CmdDisconnect carries no arguments, so the
// constant is the whole packet text; [Command] recognises it.
const (
	CmdGetInfo           = "getinfo"
	CmdGetStatus         = "getstatus"
	CmdGetChallenge      = "getchallenge"
	CmdConnect           = "connect"
	CmdInfoResponse      = "infoResponse"
	CmdStatusResponse    = "statusResponse"
	CmdChallengeResponse = "challengeResponse"
	CmdConnectResponse   = "connectResponse"
	CmdPrint             = "print"
	CmdDisconnect        = "disconnect"
)

// Query limits.
const (
	// MaxStatusPlayers is the most player lines ParseStatusResponse
	// accepts and FormatStatusResponse writes (Quake III's MAX_CLIENTS).
	MaxStatusPlayers = 64

	// MaxChallengeLen is the longest getinfo/getstatus challenge accepted;
	// ioquake3 ignores longer ones.
	MaxChallengeLen = 128

	// MinChallengeRequestLen is the shortest getchallenge packet, marker
	// and terminating NUL included, that [FormatGetChallenge] writes. A
	// server answers a getchallenge only if its reply is no longer than
	// the request, so a forged source address cannot turn the server into
	// an amplifier; the padding pays for the reply in advance.
	MinChallengeRequestLen = 64

	// ProtocolVersion is the protocol version a challengeResponse
	// announces. It is common/proto's Version, which this package
	// cannot import (common/proto imports it); a test in
	// client checks that the two agree.
	ProtocolVersion = 6
)

// BadChallengePrint is the text of the print a server sends to a connect
// whose challenge it did not give to that address or has forgotten. A
// client recognises it with [IsBadChallenge] and asks for a fresh
// challenge.
const BadChallengePrint = "No or bad challenge for your address.\n"

// badChallengePrefix is the part of BadChallengePrint that IsBadChallenge
// matches: the stable start of Quake III's message.
const badChallengePrefix = "No or bad challenge"

// IsBadChallenge reports whether msg, the text of a print, says that the
// server refused a connect for its challenge: it starts, after any
// whitespace, with "No or bad challenge" (ignoring case), as
// [BadChallengePrint] and Quake III's message do.
func IsBadChallenge(msg string) bool {
	msg = strings.TrimLeft(msg, " \t\r\n")
	return len(msg) >= len(badChallengePrefix) && infostr.EqualFold(msg[:len(badChallengePrefix)], badChallengePrefix)
}

// PlayerLine is one player of a statusResponse: `<score> <ping> "<name>"`.
type PlayerLine struct {
	Score int
	Ping  int
	Name  string
}

// expect checks that the first token of the first line of text is cmd and
// returns that line.
func expect(text, cmd string) (string, error) {
	line, _ := firstLine(text)
	if len(line) > cmdargs.MaxStringChars {
		return "", fmt.Errorf("oob: %s line is %d bytes, limit %d", cmd, len(line), cmdargs.MaxStringChars)
	}
	if got := Command(line); !infostr.EqualFold(got, cmd) {
		return "", fmt.Errorf("oob: command is %q, want %q", got, cmd)
	}
	return line, nil
}

// argv1 returns the second token of line, or "" if there is none.
func argv1(line string) string {
	_, next, _ := cmdargs.NextToken(line, 0)
	tok, _, _ := cmdargs.NextToken(line, next)
	return tok
}

func formatWithChallenge(cmd, challenge string) string {
	if challenge == "" {
		return cmd
	}
	return cmd + " " + cmdargs.Quote(challenge)
}

func parseChallengeArg(text, cmd string) (string, error) {
	line, err := expect(text, cmd)
	if err != nil {
		return "", err
	}
	c := argv1(line)
	if len(c) > MaxChallengeLen {
		return "", fmt.Errorf("oob: %s challenge is %d bytes, limit %d", cmd, len(c), MaxChallengeLen)
	}
	if i := infostr.IndexForbidden(c); i >= 0 {
		return "", fmt.Errorf("oob: %s challenge contains %q", cmd, c[i])
	}
	return c, nil
}

// FormatGetInfo returns the text of a getinfo request: "getinfo
// <challenge>", or "getinfo" when challenge is empty. The server echoes
// the challenge in its reply so the client can match it to the request.
func FormatGetInfo(challenge string) string {
	return formatWithChallenge(CmdGetInfo, challenge)
}

// ParseGetInfo reads a getinfo request and returns its challenge, which
// may be empty. The challenge is at most [MaxChallengeLen] bytes and fit
// to be an info value, so the server can put it in its reply.
func ParseGetInfo(text string) (challenge string, err error) {
	return parseChallengeArg(text, CmdGetInfo)
}

// FormatGetStatus returns the text of a getstatus request: "getstatus
// <challenge>", or "getstatus" when challenge is empty.
func FormatGetStatus(challenge string) string {
	return formatWithChallenge(CmdGetStatus, challenge)
}

// ParseGetStatus reads a getstatus request and returns its challenge, with
// the checks of [ParseGetInfo].
func ParseGetStatus(text string) (challenge string, err error) {
	return parseChallengeArg(text, CmdGetStatus)
}

// FormatConnect returns the text of a connect request, `connect
// "<userinfo>"`. Tremor sends it in plain text (Quake III clients
// Huffman-compressed it). The userinfo must pass [Validate] and the line
// must fit in [cmdargs.MaxStringChars], or the server's tokenizer would cut it.
func FormatConnect(userinfo string) (string, error) {
	if err := infostr.Validate(userinfo); err != nil {
		return "", err
	}
	text := CmdConnect + ` "` + userinfo + `"`
	if len(text) > cmdargs.MaxStringChars {
		return "", fmt.Errorf("oob: connect line is %d bytes, limit %d", len(text), cmdargs.MaxStringChars)
	}
	return text, nil
}

// ParseConnect reads a plain-text connect request and returns its
// userinfo, which must pass [Validate]. A missing userinfo is an error.
func ParseConnect(text string) (userinfo string, err error) {
	line, err := expect(text, CmdConnect)
	if err != nil {
		return "", err
	}
	_, next, _ := cmdargs.NextToken(line, 0)
	userinfo, _, ok := cmdargs.NextToken(line, next)
	if !ok {
		return "", errors.New("oob: connect without userinfo")
	}
	if err := infostr.Validate(userinfo); err != nil {
		return "", err
	}
	return userinfo, nil
}

// FormatInfoResponse returns the text of a getinfo reply,
// "infoResponse\n<info>".
func FormatInfoResponse(info string) string {
	return CmdInfoResponse + "\n" + info
}

// ParseInfoResponse reads a getinfo reply and returns its info string,
// which must pass [ValidateBig]. A newline ending the text is dropped.
func ParseInfoResponse(text string) (info string, err error) {
	if _, err := expect(text, CmdInfoResponse); err != nil {
		return "", err
	}
	_, info = firstLine(text)
	info = strings.TrimSuffix(info, "\n")
	if err := infostr.ValidateBig(info); err != nil {
		return "", err
	}
	return info, nil
}

// FormatStatusResponse returns the text of a getstatus reply:
// "statusResponse\n<info>\n" followed by `<score> <ping> "<name>"\n` for
// each player. Players are written in order, up to [MaxStatusPlayers],
// while the text stays within [MaxTextLen] and each line within
// [cmdargs.MaxStringChars]; the rest are left out, as Quake III stopped when its
// buffer was full. Score and ping are clamped to 32 bits. Double quotes,
// newlines and NUL bytes in names, which the format cannot carry, become
// '.'. The info string is written as given: keep it valid and short
// enough to fit.
func FormatStatusResponse(info string, players []PlayerLine) string {
	var b strings.Builder
	b.WriteString(CmdStatusResponse)
	b.WriteByte('\n')
	b.WriteString(info)
	b.WriteByte('\n')
	var line []byte
	for i, p := range players {
		if i == MaxStatusPlayers {
			break
		}
		line = appendPlayerLine(line[:0], p)
		if len(line)-1 > cmdargs.MaxStringChars || b.Len()+len(line) > MaxTextLen {
			break
		}
		b.Write(line)
	}
	return b.String()
}

func appendPlayerLine(dst []byte, p PlayerLine) []byte {
	dst = strconv.AppendInt(dst, clamp32(p.Score), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, clamp32(p.Ping), 10)
	dst = append(dst, ' ', '"')
	for i := 0; i < len(p.Name); i++ {
		c := p.Name[i]
		if c == '"' || c == '\n' || c == 0 {
			c = '.'
		}
		dst = append(dst, c)
	}
	return append(dst, '"', '\n')
}

func clamp32(n int) int64 {
	return int64(max(math.MinInt32, min(n, math.MaxInt32)))
}

// ParseStatusResponse reads a getstatus reply: the info string on the
// second line (checked with [ValidateBig]) and one player per following
// non-blank line, `<score> <ping> "<name>"` with 32-bit decimal score and
// ping, read with the tokenizer. Lines may end in CR LF. More than
// [MaxStatusPlayers] players is an error, and so is a line longer than
// [cmdargs.MaxStringChars].
func ParseStatusResponse(text string) (info string, players []PlayerLine, err error) {
	if _, err := expect(text, CmdStatusResponse); err != nil {
		return "", nil, err
	}
	_, rest := firstLine(text)
	info, rest, ok := strings.Cut(rest, "\n")
	if !ok && info == "" {
		return "", nil, errors.New("oob: statusResponse without info line")
	}
	info = strings.TrimSuffix(info, "\r")
	if err := infostr.ValidateBig(info); err != nil {
		return "", nil, fmt.Errorf("oob: statusResponse: %w", err)
	}
	for n := 3; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimLeft(line, " \t\r") == "" {
			continue
		}
		if len(players) == MaxStatusPlayers {
			return "", nil, fmt.Errorf("oob: statusResponse lists more than %d players", MaxStatusPlayers)
		}
		p, err := parsePlayerLine(line)
		if err != nil {
			return "", nil, fmt.Errorf("oob: statusResponse line %d: %w", n, err)
		}
		players = append(players, p)
	}
	return info, players, nil
}

func parsePlayerLine(line string) (PlayerLine, error) {
	if len(line) > cmdargs.MaxStringChars {
		return PlayerLine{}, fmt.Errorf("%d bytes, limit %d", len(line), cmdargs.MaxStringChars)
	}
	line = cmdargs.Cut(line)
	var tok [3]string
	next := 0
	for i := range tok {
		var ok bool
		tok[i], next, ok = cmdargs.NextToken(line, next)
		if !ok {
			return PlayerLine{}, fmt.Errorf("%d fields, want 3", i)
		}
	}
	if _, _, ok := cmdargs.NextToken(line, next); ok {
		return PlayerLine{}, errors.New("more than 3 fields")
	}
	score, err := strconv.ParseInt(tok[0], 10, 32)
	if err != nil {
		return PlayerLine{}, fmt.Errorf("score %q is not a 32-bit integer", tok[0])
	}
	ping, err := strconv.ParseInt(tok[1], 10, 32)
	if err != nil {
		return PlayerLine{}, fmt.Errorf("ping %q is not a 32-bit integer", tok[1])
	}
	return PlayerLine{Score: int(score), Ping: int(ping), Name: tok[2]}, nil
}

// FormatGetChallenge returns the text of a getchallenge request,
// "getchallenge <clientChallenge> <padding>" (ioquake3's form plus the
// padding). clientChallenge is a number the client picks at random for
// each connection attempt; the server echoes it in its challengeResponse,
// so a client can tell a reply to its own request from a forged one. The
// padding is one token of '.' characters that makes the packet
// ([AppendPacket]: marker, text, NUL) [MinChallengeRequestLen] bytes long.
func FormatGetChallenge(clientChallenge int32) string {
	text := CmdGetChallenge + " " + strconv.FormatInt(int64(clientChallenge), 10) + " "
	pad := max(1, MinChallengeRequestLen-len(Marker)-1-len(text))
	return text + strings.Repeat(".", pad)
}

// ParseGetChallenge reads a getchallenge request and returns its client
// challenge: a 32-bit decimal integer, or 0 when it is missing (Quake III
// clients send a bare "getchallenge"). Further arguments (the padding,
// the game name ioquake3 clients send) are ignored; whether the packet is
// long enough is for the server to check against
// [MinChallengeRequestLen].
func ParseGetChallenge(text string) (clientChallenge int32, err error) {
	line, err := expect(text, CmdGetChallenge)
	if err != nil {
		return 0, err
	}
	arg := argv1(line)
	if arg == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(arg, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("oob: getchallenge client challenge %q is not a 32-bit integer", arg)
	}
	return int32(n), nil
}

// FormatChallengeResponse returns the text of a getchallenge reply in
// ioquake3's form, "challengeResponse <challenge> <clientChallenge>
// <protocol>": the challenge the client must put in its connect, the
// client challenge of the getchallenge it answers (0 if that had none),
// and [ProtocolVersion].
func FormatChallengeResponse(challenge, clientChallenge int32) string {
	return CmdChallengeResponse + " " + strconv.FormatInt(int64(challenge), 10) + " " +
		strconv.FormatInt(int64(clientChallenge), 10) + " " + strconv.Itoa(ProtocolVersion)
}

// ParseChallengeResponse reads a getchallenge reply: the challenge, then
// the client challenge and the protocol version, each a 32-bit decimal
// integer. The last two are 0 when missing, as in Quake III's
// "challengeResponse <challenge>"; further arguments are ignored.
func ParseChallengeResponse(text string) (challenge, clientChallenge, protocol int32, err error) {
	line, err := expect(text, CmdChallengeResponse)
	if err != nil {
		return 0, 0, 0, err
	}
	var args [3]int32
	names := [3]string{"challenge", "client challenge", "protocol"}
	_, next, _ := cmdargs.NextToken(line, 0)
	for i := range args {
		tok, n, ok := cmdargs.NextToken(line, next)
		if !ok {
			if i == 0 {
				return 0, 0, 0, errors.New("oob: challengeResponse without challenge")
			}
			break
		}
		next = n
		v, err := strconv.ParseInt(tok, 10, 32)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("oob: challengeResponse %s %q is not a 32-bit integer", names[i], tok)
		}
		args[i] = int32(v)
	}
	return args[0], args[1], args[2], nil
}

// FormatConnectResponse returns the text of the reply to an accepted
// connect, "connectResponse <challenge>", with the challenge of that
// connect so that the client can tell it from a forged or stale one.
func FormatConnectResponse(challenge int32) string {
	return CmdConnectResponse + " " + strconv.FormatInt(int64(challenge), 10)
}

// FormatConnectResponseSize returns the reply to an accepted connect
// from a peer whose fragment size is not the default (a WebRTC peer,
// netchan.WebRTCFragmentSize): "connectResponse CHALLENGE SIZE". A
// client that reads only the challenge ignores the size
// (ParseConnectResponse); ConnectResponseFragmentSize reads it.
func FormatConnectResponseSize(challenge int32, fragmentSize int) string {
	return FormatConnectResponse(challenge) + " " + strconv.Itoa(fragmentSize)
}

// ConnectResponseFragmentSize returns the fragment size a
// connectResponse states as its second argument, and false when it
// states none (a UDP peer: the default size) or a malformed one.
func ConnectResponseFragmentSize(text string) (int, bool) {
	line, err := expect(text, CmdConnectResponse)
	if err != nil {
		return 0, false
	}
	_, next, _ := cmdargs.NextToken(line, 0)
	_, next, _ = cmdargs.NextToken(line, next)
	tok, _, _ := cmdargs.NextToken(line, next)
	n, err := strconv.Atoi(tok)
	if err != nil || n <= 0 || n > 1<<16 {
		return 0, false
	}
	return n, true
}

// ParseConnectResponse reads the reply to a connect and returns its
// challenge, a 32-bit decimal integer. ok is false when it has none (the
// Quake III form, "connectResponse"); further arguments are ignored.
func ParseConnectResponse(text string) (challenge int32, ok bool, err error) {
	line, err := expect(text, CmdConnectResponse)
	if err != nil {
		return 0, false, err
	}
	arg := argv1(line)
	if arg == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(arg, 10, 32)
	if err != nil {
		return 0, false, fmt.Errorf("oob: connectResponse challenge %q is not a 32-bit integer", arg)
	}
	return int32(n), true, nil
}

// FormatPrint returns the text of a print message, "print\n<msg>", which a
// server sends to show msg to the client (a refusal to connect, say).
func FormatPrint(msg string) string {
	return CmdPrint + "\n" + msg
}

// ParsePrint reads a print message and returns everything after its first
// line.
func ParsePrint(text string) (string, error) {
	if _, err := expect(text, CmdPrint); err != nil {
		return "", err
	}
	_, msg := firstLine(text)
	return msg, nil
}

package protospec

import (
	"fmt"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game/framesync"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// The constants table lives in a test file so that a constant renamed
// or removed by a protocol change breaks this package's tests, which
// must be regenerated then anyway, and never the build.

// constant is one row of the constants table.
type constant struct {
	name    string // as the code spells it
	value   int64
	section string // where the document explains it
	meaning string
}

// constants lists the numbers of the protocol, read from the code.
func constants() []constant {
	return []constant{
		{"proto.Version", proto.Version, "8", "protocol version: challengeResponse, connect's `protocol` key, serverinfo, demo headers"},
		{"netchan.MaxPacketLen", netchan.MaxPacketLen, "4.1", "longest packet Tremor sends, header included"},
		{"netchan.FragmentSize", netchan.FragmentSize, "4.2", "a message this long or longer goes in fragments of this size"},
		{"netchan.MaxMsgLen", netchan.MaxMsgLen, "4.2", "longest message (reassembled)"},
		{"netchan.FragmentBit", netchan.FragmentBit, "4.1", "bit of the sequence that marks a fragment"},
		{"netchan.MaxSequenceJump", netchan.MaxSequenceJump, "4.3", "a sequence further ahead than this is dropped"},
		{"netchan.PacketBackup", netchan.PacketBackup, "6.3", "snapshots (server) and usercmd packets (client) remembered"},
		{"msg.MaxCodeLen", msg.MaxCodeLen, "2", "longest Huffman code, bits"},
		{"msg.MaxStringChars", msg.MaxStringChars, "1.3", "longest string, bytes before its zero"},
		{"msg.MaxBigStringChars", msg.MaxBigStringChars, "1.3", "longest big string, bytes before its zero"},
		{"msg.EntityNumBits", msg.EntityNumBits, "3.3", "width of an entity number"},
		{"msg.FloatIntBits", msg.FloatIntBits, "3.2", "width of the small-integer float tier"},
		{"msg.FloatIntBias", msg.FloatIntBias, "3.2", "added to a small-integer float before it is sent"},
		{"proto.EntityEnd", proto.EntityEnd, "6.3", "entity number that ends a list of entities"},
		{"proto.MaxSnapshotEntities", proto.MaxSnapshotEntities, "6.3", "most entities in one snapshot"},
		{"proto.TimeIncrementBits", proto.TimeIncrementBits, "6.3", "width of a delta snapshot's server-time increment"},
		{"proto.MaxPacketUsercmds", proto.MaxPacketUsercmds, "6.6", "most usercmds in one client message"},
		{"proto.MaxReliableCommands", proto.MaxReliableCommands, "6.5", "size of each side's reliable command ring"},
		{"proto.CommandSeparator", int64(proto.CommandSeparator), "6.5", "byte joining several server commands in one slot"},
		{"proto.SvcNop", proto.SvcNop, "6.1", "server operation: nothing"},
		{"proto.SvcGamestate", proto.SvcGamestate, "6.2", "server operation: gamestate"},
		{"proto.SvcConfigstring", proto.SvcConfigstring, "6.2", "inside a gamestate: a configstring"},
		{"proto.SvcBaseline", proto.SvcBaseline, "6.2", "inside a gamestate: a baseline"},
		{"proto.SvcServerCommand", proto.SvcServerCommand, "6.1", "server operation: reliable server command"},
		{"proto.SvcSnapshot", proto.SvcSnapshot, "6.3", "server operation: snapshot"},
		{"proto.SvcEOF", proto.SvcEOF, "6.1", "server operation: end of message (and of a gamestate's lists)"},
		{"proto.SvcDownload", proto.SvcDownload, "6.1", "server operation: map download block"},
		{"proto.SvcStateHash", proto.SvcStateHash, "6.1", "server operation: state hashes of the snapshot before it"},
		{"proto.SvcFrames", proto.SvcFrames, "6.8", "server operation (frame sync): the input lead and a frames message"},
		{"proto.SvcWholeState", proto.SvcWholeState, "6.8", "server operation (frame sync): a whole-state message"},
		{"proto.ClcNop", proto.ClcNop, "6.6", "client operation: nothing"},
		{"proto.ClcMove", proto.ClcMove, "6.6", "client operation: usercmds; the next snapshot may be a delta"},
		{"proto.ClcMoveNoDelta", proto.ClcMoveNoDelta, "6.6", "client operation: usercmds; send a full snapshot"},
		{"proto.ClcClientCommand", proto.ClcClientCommand, "6.6", "client operation: reliable client command"},
		{"proto.ClcEOF", proto.ClcEOF, "6.6", "client operation: end of message"},
		{"proto.ClcFrameRequest", proto.ClcFrameRequest, "6.8", "client operation (frame sync): frames or a whole state asked for"},
		{"framesync.MaxMessageFrames", framesync.MaxMessageFrames, "6.8", "most frames in one frames message"},
		{"framesync.MaxBaseDistance", framesync.MaxBaseDistance, "6.8", "furthest back a frames message's base may be, frames"},
		{"framesync.FrameBuffer", framesync.FrameBuffer, "6.8", "frames a server keeps for resends and requests"},
		{"proto.SnapRateDelayed", proto.SnapRateDelayed, "6.3", "snapshot flag: held back by the client's rate"},
		{"proto.SnapNotActive", proto.SnapNotActive, "6.3", "snapshot flag: the client is not in the game yet"},
		{"proto.SnapServerCount", proto.SnapServerCount, "6.3", "snapshot flag: toggles on every map change and restart"},
		{"proto.DownloadBlockSize", proto.DownloadBlockSize, "6.1", "largest download block, bytes"},
		{"proto.MaxDownloadSize", proto.MaxDownloadSize, "6.1", "largest map download, bytes"},
		{"proto.RestartTime", int64(proto.RestartTime), "7.3", "a server restarts its map with its clock at 0 when the clock reaches this, ms"},
		{"proto.MaxServerTime", int64(proto.MaxServerTime), "7.3", "latest server time a client accepts in a snapshot, ms"},
		{"oob.MinChallengeRequestLen", oob.MinChallengeRequestLen, "5.3", "getchallenge packets are padded to this length, bytes"},
		{"oob.MaxStatusPlayers", oob.MaxStatusPlayers, "5.2", "most player lines in a statusResponse"},
		{"oob.MaxReceivedLen", oob.MaxReceivedLen, "5.1", "longest connectionless packet accepted"},
		{"infostr.MaxInfoString", infostr.MaxInfoString, "5.6", "userinfo and serverinfo are shorter than this"},
		{"infostr.BigInfoString", infostr.BigInfoString, "5.6", "systeminfo and getstatus replies are shorter than this"},
		{"bg.MaxClients", bg.MaxClients, "6.2", "client numbers are 0 to this − 1"},
		{"bg.MaxConfigstrings", bg.MaxConfigstrings, "6.4", "configstring indices are 0 to this − 1"},
		{"bg.CSServerInfo", bg.CSServerInfo, "6.4", "configstring of the serverinfo"},
		{"bg.CSSystemInfo", bg.CSSystemInfo, "6.4", "configstring of the systeminfo (sv_serverid, sv_scramble)"},
		{"bg.CSMapChecksum", bg.CSMapChecksum, "6.4", "configstring of the map's checksum"},
		{"bg.CSPlayers", bg.CSPlayers, "6.4", "configstring of player 0's info; player n's is this + n"},
	}
}

// constantsTable returns the Markdown table of the protocol's
// constants, with their values as the code has them.
func constantsTable() string {
	var b strings.Builder
	b.WriteString("| constant | value | section | meaning |\n| --- | ---: | ---: | --- |\n")
	for _, c := range constants() {
		v := fmt.Sprint(c.value)
		if c.value >= 1<<16 && c.value&(c.value-1) == 0 {
			v = fmt.Sprintf("%d (0x%x)", c.value, c.value)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.name, v, c.section, c.meaning)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Package browser is the server browser's model without a window: the
// lists of servers found on the local network (LAN), got from master
// servers (Internet) and kept by the player (Favorites), each entry with
// the answer to its own getinfo query. It is Quake III's cl_main.c
// server-list code (CL_LocalServers_f, CL_GlobalServers_f,
// CL_ServerInfoPacket, CL_Ping_f) as one model the menu reads.
//
// # Driving it
//
// A [Browser] owns its UDP sockets. A goroutine per socket reads answers
// into a bounded queue and stamps each with its arrival time; everything
// else happens in [Browser.Frame], which the program calls once a frame
// from the goroutine that runs the menu. Frame never blocks: it reads the
// queued answers, sends what the pacing allows, and marks queries that
// waited too long as timed out. [Browser.Refresh] only asks for a
// refresh, which the next Frame starts, so the menu needs no clock.
// Host names of favourites and masters are looked up on goroutines too,
// at most four at once ([Config.Lookup]); [Browser.Close] stops them and
// waits for them.
//
// # LAN
//
// A LAN refresh sends "getinfo CHALLENGE" to each port of [Config.Ports]
// at the broadcast address of every up IPv4 interface that has one, at
// 127.0.0.1 (a server on this machine: loopback has no broadcast), and at
// ioquake3's IPv6 multicast group [Multicast6]. Every destination gets a
// challenge of its own, fresh at each refresh, so that an answer says
// which query it answers and its ping is measured from that query's send
// time. Answers arrive for [Config.LANWait] after the last query; an
// answer whose challenge is not one of the refresh's, or whose source
// could not have received that query, is dropped. A server is listed
// once per address and port however often it answers, and the queue
// the answers wait in for Frame is shared fairly: a flood from one
// address, on any ports, displaces only its own packets.
//
// # Internet and Favorites
//
// An Internet refresh asks each of [Config.Masters] for its list
// (getservers and getserversExt) and pings the addresses got; a
// Favorites refresh pings each favourite. Every such ping is a getinfo
// with a challenge of its own; it is answered, or after [Config.Timeout]
// tried again up to [Config.Retries] times (at most [MaxRetries]), and
// then shown as timed out.
//
// # What a master may list
//
// A master is a stranger, and what it lists is pinged from the player's
// address, so its list is not trusted. An address is dropped unless its
// scope is as wide as the master's (IPv4-mapped addresses are read as
// IPv4 first): a master on the internet may list only global addresses,
// one on a private network also private ones (RFC 1918, the carrier-NAT
// 100.64.0.0/10, IPv6 ULA), one on the link also link-local ones, one on
// this machine also loopback ones. Unspecified, broadcast (the limited
// one and this machine's networks'), multicast and reserved addresses
// and port 0 are always dropped. Of what is left, a refresh pings at
// most [HostPorts] servers of one host (an IPv4 address or an IPv6 /64)
// until one of them answers, then up to [AnsweredHostPorts], and
// [MaxPinged] in all; the others are listed as [NotQueried].
// Favourites are the player's own (typed, or picked one by one from a
// list already filtered) and are pinged as they are.
//
// # Pacing
//
// All sources share one budget: in any window of one second the browser
// sends at most [Config.PacketsPerSecond] packets, however long the lists.
//
// A Browser is not safe for concurrent use, except that its socket
// readers run on their own goroutines.
package browser

package client

import "tremor/net/netchan"

// NetchanStats returns the counters of the connection's netchan (packets
// and bytes each way, sequence gaps, duplicates), and false when the
// client has no channel: before the server accepted it, or after a drop.
// The classroom view compares its packet lanes with them.
func (c *Client) NetchanStats() (netchan.Stats, bool) {
	if c.conn.ch == nil {
		return netchan.Stats{}, false
	}
	return c.conn.ch.Stats(), true
}

package bot

import "math"

// unreached is the distance of a node a search did not reach.
const unreached = math.MaxInt32

// banCost is added to an edge a bot failed to execute recently, so that a
// search takes it only if there is no other way.
const banCost = 30000

// search is Dijkstra's algorithm over a Nav with travel time as cost. Its
// buffers are sized once for the Nav, so a search does not allocate. One
// search from the bot's node gives the travel time to every goal at once
// (items, enemies), which is what choosing a goal needs.
type search struct {
	nav  *Nav
	dist []int32 // ms from the start
	via  []int32 // edge a node was reached by, -1 for the start
	heap []heapItem
}

type heapItem struct{ d, node int32 }

func newSearch(n *Nav) search {
	return search{
		nav:  n,
		dist: make([]int32, len(n.nodes)),
		via:  make([]int32, len(n.nodes)),
		heap: make([]heapItem, 0, len(n.edges)+1),
	}
}

// run computes the distance from start to every node. banned, if not nil,
// holds per edge the time until which it is banned.
func (s *search) run(start int32, now int32, banned []int32) {
	for i := range s.dist {
		s.dist[i] = unreached
		s.via[i] = -1
	}
	if start < 0 || int(start) >= len(s.dist) {
		return
	}
	edges := s.nav.edges
	first := s.nav.first
	s.dist[start] = 0
	s.heap = append(s.heap[:0], heapItem{0, start})
	for len(s.heap) > 0 {
		it := s.pop()
		if it.d != s.dist[it.node] {
			continue // stale
		}
		for e := first[it.node]; e < first[it.node+1]; e++ {
			ed := &edges[e]
			d := it.d + ed.Cost
			if banned != nil && banned[e] > now {
				d += banCost
			}
			if d < s.dist[ed.To] {
				s.dist[ed.To] = d
				s.via[ed.To] = e
				s.push(heapItem{d, ed.To})
			}
		}
	}
}

// path writes the edges from the search's start to goal into buf and
// returns it; empty if goal was not reached or is the start.
func (s *search) path(goal int32, buf []int32) []int32 {
	buf = buf[:0]
	if goal < 0 || int(goal) >= len(s.dist) || s.dist[goal] == unreached {
		return buf
	}
	for v := goal; s.via[v] >= 0; v = s.nav.edges[s.via[v]].From {
		buf = append(buf, s.via[v])
		if len(buf) > len(s.dist) {
			return buf[:0] // cannot happen: via forms a tree
		}
	}
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return buf
}

func less(a, b heapItem) bool { return a.d < b.d || a.d == b.d && a.node < b.node }

func (s *search) push(it heapItem) {
	h := append(s.heap, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.heap = h
}

func (s *search) pop() heapItem {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			c = r
		}
		if !less(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	s.heap = h
	return top
}

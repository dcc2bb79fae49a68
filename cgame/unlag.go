package cgame

import "tremor/bg"

// Lag compensation as the shooter sees it. When the server decides a hit
// of this client's with its targets rewound (g_unlagged), it sends an
// EvUnlagged temporary entity: where the target was rewound to — where
// this client drew it when it fired — and where the target stood on the
// server as the shot arrived. The cgame keeps the latest of those
// addressed to its own player for the cg_showUnlagged overlay.

// UnlaggedHit is one hit of the local player decided on a rewound target.
type UnlaggedHit struct {
	Target  int32 // the client hit
	Rewound Point // the target's origin the shot met: as this client drew it
	Server  Point // the target's origin on the server when the shot arrived
	Msec    int32 // how far back the server went, ms
	Time    int32 // render time the event arrived
}

// MaxUnlaggedHits is how many hits UnlaggedHits keeps.
const MaxUnlaggedHits = 8

// UnlaggedHits is a ring of the latest rewound hits of the local player.
type UnlaggedHits struct {
	list  [MaxUnlaggedHits]UnlaggedHit
	Total int // hits ever added
}

// Len returns how many hits are held.
func (u *UnlaggedHits) Len() int { return min(u.Total, MaxUnlaggedHits) }

// At returns hit i, 0 the oldest held.
func (u *UnlaggedHits) At(i int) UnlaggedHit {
	return u.list[(u.Total-u.Len()+i)%MaxUnlaggedHits]
}

// noteUnlagged keeps an EvUnlagged entity's hit if the local player
// fired the shot.
func (g *CGame) noteUnlagged(es *bg.EntityState) {
	if g.Snap == nil || es.OtherEntity != g.Snap.PS.ClientNum {
		return
	}
	g.Unlagged.list[g.Unlagged.Total%MaxUnlaggedHits] = UnlaggedHit{
		Target:  es.ClientNum,
		Rewound: PointOf(es.Pos.Base),
		Server:  PointOf(es.Origin2),
		Msec:    es.EventParm,
		Time:    g.Time,
	}
	g.Unlagged.Total++
}

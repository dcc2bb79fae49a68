package server

import "tremor/bg"

// GameStates gives the event journal (docs/journal.md) the states the
// last frame left: player is called with the player state of every
// client slot in use, entity with the state of every linked entity, in
// number order. A replay whose game hash differs from the recorded one
// compares them to name the player or entity, and the field, that
// differs. The pointers are valid during the call only.
func (s *Server) GameStates(player func(num int, ps *bg.PlayerState), entity func(es *bg.EntityState)) {
	lv := s.sv
	if lv == nil {
		return
	}
	for i := range s.svs.clients {
		if s.svs.clients[i].state != StateFree && i < len(lv.ps) {
			player(i, &lv.ps[i])
		}
	}
	for i := range lv.numEntities {
		if lv.ents[i].Linked {
			entity(&lv.ents[i].S)
		}
	}
}

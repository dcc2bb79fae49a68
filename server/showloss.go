package server

// showLoss prints, for sv_showloss, how many of the client's packets were
// lost before the message just received from it: the sequences its
// netchan skipped ("client 3: 2 dropped"). The caller checks the cvar and
// that something was dropped, so that nothing is formatted otherwise.
func (s *Server) showLoss(c *client) {
	s.logf("client %d: %d dropped", c.num, c.chan_.Dropped())
}

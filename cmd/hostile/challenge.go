package main

import (
	"tremor/net/oob"
)

// challengeReply is a parsed challengeResponse.
type challengeReply struct {
	Challenge int32
	// ClientChallenge is the echo of the request's client challenge (0
	// from a server that sends none).
	ClientChallenge int32
}

// parseChallengeResponse reads "challengeResponse <challenge>
// [<clientChallenge> [<protocol>]]".
func parseChallengeResponse(text string) (challengeReply, error) {
	ch, client, _, err := oob.ParseChallengeResponse(text)
	if err != nil {
		return challengeReply{}, err
	}
	return challengeReply{Challenge: ch, ClientChallenge: client}, nil
}

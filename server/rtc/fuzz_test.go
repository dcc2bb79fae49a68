package rtc_test

import (
	"errors"
	"strings"
	"testing"

	"tremor/server/rtc"
)

// FuzzParseOffer feeds the signalling's offer decoder (and pion's SDP
// parser behind it) arbitrary bodies: it must never panic, must refuse
// what breaks its own limits, and an offer it takes must keep its text.
func FuzzParseOffer(f *testing.F) {
	_, real, err := newOffer(browserAPI(), rtc.Label, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(real))
	f.Add([]byte(strings.ReplaceAll(real, "\r\n", "\n")))
	f.Add([]byte("v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"))
	f.Add([]byte("v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=fingerprint:sha-256 00\r\n"))
	f.Add([]byte(""))
	f.Add([]byte("v=0"))
	f.Add([]byte("v=0\nm=application \x00webrtc-datachannel"))
	f.Add([]byte(strings.Repeat("a=x\n", 300)))
	f.Fuzz(func(t *testing.T, body []byte) {
		sd, err := rtc.ParseOffer(body)
		if len(body) > rtc.MaxOfferLen && !errors.Is(err, rtc.ErrOfferTooLong) {
			t.Fatalf("%d bytes: err %v, want ErrOfferTooLong", len(body), err)
		}
		if err != nil {
			return
		}
		if sd.SDP != string(body) {
			t.Fatal("the offer's text changed")
		}
		if !strings.HasPrefix(sd.SDP, "v=0") || !strings.Contains(sd.SDP, "webrtc-datachannel") {
			t.Fatalf("took an offer without v=0 or a data channel: %q", sd.SDP)
		}
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"tremor/net/netchan"
	"tremor/server/rtc"
)

// TestRTCOffers floods a real transport's web port from two addresses:
// its offers are valid (pion answers those the limit lets through),
// and the rest are refused 429, each source on its own bucket.
func TestRTCOffers(t *testing.T) {
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rtc.Listen(udp, rtc.Config{SharedPort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	web, err := tr.ListenHTTP("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"rtcoffers", "-url", "http://" + web.String() + "/", "-rate", "200", "-duration", "1s",
		"-addrs", "127.0.0.2-127.0.0.3", "-workers", "4"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	var res rtcOffersResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	ok, limited := res.ByStatus["200"], res.ByStatus["429"]
	// Each source's burst passes, then one a second: 2×4 to 2×6 in a
	// second or so of posting.
	if ok < 2*rtc.OfferBurst || ok > 2*(rtc.OfferBurst+2) || ok+limited != res.Sent || res.Errors != 0 {
		t.Errorf("result %+v: want %d to %d answered, the rest 429, no errors", res, 2*rtc.OfferBurst, 2*(rtc.OfferBurst+2))
	}
	if st := tr.Stats(); st.Answered != uint64(ok) || st.BadOffers != 0 {
		t.Errorf("transport stats %+v: want %d answered, no bad offers", st, ok)
	}
}

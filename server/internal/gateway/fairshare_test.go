package gateway_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// distinctQuestions are private paths about listed contracts, each its own
// cache key: a venue call each when first asked.
func distinctQuestions(s *stack) []string {
	var paths []string
	for _, m := range s.sb.Markets() {
		if m.Kind == venueapi.KindSwap {
			paths = append(paths, venueapi.PathTiers+"?contract_code="+m.Code)
			for _, b := range []string{"swap", "all"} {
				paths = append(paths, venueapi.PathPositionLimit+"?business_type="+b+"&contract_code="+m.Code)
			}
			continue
		}
		for _, b := range []string{"futures", "all"} {
			paths = append(paths, venueapi.PathPositionLimit+"?business_type="+b+"&contract_code="+m.Code)
		}
	}
	return paths
}

func privateCalls(s *stack) int64 {
	return s.sb.Received(venueapi.PathTiers) + s.sb.Received(venueapi.PathPositionLimit)
}

func TestOneClientCannotSpendMoreThanItsShareWhileAnotherIsAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk})
		const hammer, viewer, share = "127.0.0.2", "127.0.0.3", 72 / 4
		paths := distinctQuestions(s)
		if len(paths) <= share {
			t.Fatalf("%d distinct questions: too few to spend a share of %d", len(paths), share)
		}
		answered, refused := 0, 0
		for _, p := range paths {
			a := s.getFrom(t, hammer, p)
			switch code, msg := a.errCode(t); {
			case a.status == 200 && code == 200:
				answered++
			case a.status == http.StatusTooManyRequests && code == venueapi.CodeRateLimited && a.header.Get("Retry-After") == "3" && strings.Contains(msg, "share"):
				refused++
			default:
				t.Fatalf("%s: HTTP %d code %d %q Retry-After %q, want an answer or 429 1032 after 3 s", p, a.status, code, msg, a.header.Get("Retry-After"))
			}
		}
		if answered != share || refused != len(paths)-share || privateCalls(s) != share {
			t.Fatalf("%d answered, %d refused, %d venue calls; want %d, %d, %d", answered, refused, privateCalls(s), share, len(paths)-share, share)
		}
		// Another client's question still goes to the venue, at once.
		start := time.Now()
		a := s.getFrom(t, viewer, venueapi.PathPositionLimit+"?pair=BTC-USDT&business_type=all")
		var env venueapi.LimitEnvelope
		if err := json.Unmarshal(a.body, &env); err != nil || a.status != 200 || len(env.Data) < 2 || env.Stale || time.Since(start) >= time.Second {
			t.Fatalf("the other client: HTTP %d after %s: %.200s", a.status, time.Since(start), a.body)
		}
		// What is kept costs no share: the first question again is a hit.
		if a := s.getFrom(t, hammer, paths[0]); a.status != 200 {
			t.Fatalf("a cached answer to a client past its share: HTTP %d %.200s", a.status, a.body)
		}
		if privateCalls(s) != share+1 {
			t.Fatalf("%d venue calls, want %d", privateCalls(s), share+1)
		}
		// The share is a sliding window of 3 s.
		clk.Advance(3*time.Second - time.Millisecond)
		if a := s.getFrom(t, hammer, paths[share]); a.status != http.StatusTooManyRequests {
			t.Fatalf("just before the window has passed: HTTP %d", a.status)
		}
		clk.Advance(time.Millisecond)
		if a := s.getFrom(t, hammer, paths[share]); a.status != 200 {
			t.Fatalf("once the window has passed: HTTP %d %.200s", a.status, a.body)
		}
		m := string(s.get(t, "/metrics").body)
		for _, want := range []string{
			fmt.Sprintf(`riskchart_private_refused_locally_total{reason="share_spent"} %d`, len(paths)-share+1),
			fmt.Sprintf(`riskchart_throttled_total{budget="client_share"} %d`, len(paths)-share+1),
		} {
			if !strings.Contains(m, want) {
				t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "share"))
			}
		}
	})
}

func TestAClientPastItsShareAndAnotherAskingTheSameAtOnceCostOneCallAndTheOtherIsAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk})
		const hammer, viewer, share = "127.0.0.2", "127.0.0.3", 72 / 4
		// The viewer may start every call after the hammer's share: it asks
		// no more than its own.
		paths := distinctQuestions(s)[:2*share]
		for _, p := range paths[:share] {
			if a := s.getFrom(t, hammer, p); a.status != 200 {
				t.Fatalf("%s within the share: HTTP %d", p, a.status)
			}
		}
		// The same new question from both at once: whichever starts the
		// call, the viewer is answered; the hammer too if it joined the
		// viewer's call, which costs no share.
		for _, p := range paths[share:] {
			before := privateCalls(s)
			statuses := [2]int{}
			concurrently(2, func(i int) { statuses[i] = s.getFrom(t, []string{hammer, viewer}[i], p).status })
			if statuses[1] != 200 || (statuses[0] != 200 && statuses[0] != http.StatusTooManyRequests) {
				t.Fatalf("%s: the hammer got HTTP %d, the viewer %d; want the viewer answered", p, statuses[0], statuses[1])
			}
			if n := privateCalls(s) - before; n != 1 {
				t.Fatalf("%s: %d venue calls, want 1", p, n)
			}
		}
	})
}

// A 429 for a spent share says its wait in every header a client reads it
// from: the per-client bucket's headers, with requests to spare, would send a
// client of the venue back at once (docs/venue.md#rate-limit-headers).
func TestAClientPastItsShareIsToldItsWaitByTheRateLimitHeadersToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk})
		const hammer, share = "127.0.0.2", 72 / 4
		paths := distinctQuestions(s)
		for _, p := range paths[:share] {
			if a := s.getFrom(t, hammer, p); a.status != 200 {
				t.Fatalf("%s within the share: HTTP %d", p, a.status)
			}
		}
		a := s.getFrom(t, hammer, paths[share])
		h := a.header
		if a.status != http.StatusTooManyRequests || h.Get("Retry-After") != "3" || h.Get("Ratelimit-Remaining") != "0" || h.Get("Ratelimit-Reset") != "3000" {
			t.Errorf("past the share: HTTP %d Retry-After %q ratelimit-remaining %q ratelimit-reset %q; want 429, 3, 0, 3000",
				a.status, h.Get("Retry-After"), h.Get("Ratelimit-Remaining"), h.Get("Ratelimit-Reset"))
		}
		// The venue client, pointed at the gateway, is told to wait as long.
		tr := s.from(hammer)
		t.Cleanup(tr.CloseIdleConnections)
		client, err := venue.New(venue.Config{BaseURL: s.url, AccessKey: "dropped", SecretKey: "dropped-secret",
			HTTPClient: &http.Client{Transport: tr}, Now: clk.Now, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.PositionLimits(t.Context(), venueapi.LimitQuery{Pair: "BTC-USDT", BusinessType: "all"})
		var rl *venue.RateLimitedError
		if !errors.As(err, &rl) || rl.RetryAfter < 3*time.Second {
			t.Fatalf("the venue client past the share: %v, want to retry in 3 s or more", err)
		}
	})
}

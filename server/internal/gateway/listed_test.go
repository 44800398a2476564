package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// getFrom sends a GET from the client address ip.
func (s *stack) getFrom(t testing.TB, ip, path string, header ...string) reply {
	t.Helper()
	return s.doFrom(t, ip, http.MethodGet, path, "", header...)
}

func TestAClientSprayingUnlistedCodesCostsTheVenueOnlyTheListsRefreshesAndOthersStayFresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(0)
		s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.LimitTTL = 5 * time.Second }})
		const (
			sprayer, viewer = "127.0.0.2", "127.0.0.3"
			seconds, perSec = 120, 40 // more than the 24 a second of the private budget
		)
		day := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // no future delivers then
		viewerAsks := 0
		for sec := range seconds {
			for i := range perSec {
				n := sec*perSec + i
				path := venueapi.PathPositionLimit + "?business_type=futures&contract_code=BTC-USDT-" + day.AddDate(0, 0, n).Format("060102")
				if n%2 == 1 {
					path = fmt.Sprintf("%s?contract_code=Z%d-USDT", venueapi.PathTiers, n) // an unlisted swap
				}
				a := s.getFrom(t, sprayer, path)
				if code, msg := a.errCode(t); code != venueapi.CodeNoSuchContract {
					t.Fatalf("second %d, %s: code %d %q, want 1013", sec, path, code, msg)
				}
				if n == 0 {
					synctest.Wait() // the list its 1013 asked for has come
				}
			}
			if sec%5 == 0 { // each a cache miss: the limits live 5 s
				viewerAsks++
				start := time.Now() // the bubble's clock: the budget's waits run on it
				a := s.getFrom(t, viewer, venueapi.PathPositionLimit+"?contract_code=BTC-USDT")
				var env venueapi.LimitEnvelope
				if err := json.Unmarshal(a.body, &env); err != nil || a.status != 200 || env.Status != "ok" || len(env.Data) != 1 || env.Stale {
					t.Fatalf("second %d, the viewer's limits: HTTP %d %.200s", sec, a.status, a.body)
				}
				if waited := time.Since(start); waited >= time.Second || env.Ts != clk.Now().UnixMilli() {
					t.Fatalf("second %d: the viewer waited %s for limits as of %d, want fresh within a second", sec, waited, env.Ts)
				}
			}
			clk.Advance(time.Second)
		}
		synctest.Wait()
		// The first unlisted code is the venue's to answer; its 1013 has the
		// list asked for, and then once per 30 s as unlisted codes go on.
		lists := 1 + (seconds-1)/30
		limits, tiers := s.sb.Received(venueapi.PathPositionLimit), s.sb.Received(venueapi.PathTiers)
		sprayCost := limits + tiers - int64(viewerAsks)
		t.Logf("%d unlisted codes in %d s from one client, %d limits asks from another: the venue received %d position-limit and %d tier requests, %d of them the sprayer's",
			seconds*perSec, seconds, viewerAsks, limits, tiers, sprayCost)
		if sprayCost != int64(1+lists) {
			t.Fatalf("the sprayer cost %d venue calls, want %d: its first code, and %d lists", sprayCost, 1+lists, lists)
		}
		if m := string(s.get(t, "/metrics").body); !strings.Contains(m, fmt.Sprintf(`riskchart_private_refused_locally_total{reason="unlisted"} %d`, seconds*perSec-1)) {
			t.Fatalf("the refusals from memory are not counted:\n%s", grepLines(m, "refused_locally"))
		}
	})
}

func TestANewListingIsAskedForAtMostOnceEvery30Seconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// This week's future delivers on Friday at 08:00; then the week
		// after next is listed.
		clk := &clock{t: time.Date(2026, 11, 27, 7, 59, 0, 0, time.UTC)}
		s := newStack(t, options{clock: clk})
		limits := func(code string) string {
			return venueapi.PathPositionLimit + "?business_type=futures&contract_code=" + code
		}
		const (
			delivering = "BTC-USDT-261127"
			listedNext = "BTC-USDT-261211"
			never      = "BTC-USDT-261218"
		)
		for _, st := range []struct {
			name      string
			advance   time.Duration
			path      string
			wantCode  int
			wantCalls int64 // position-limit calls in all
		}{
			{"a code not yet listed: the venue says 1013, and the list is asked for", 0, limits(listedNext), 1013, 2},
			{"another unlisted code: from memory", 0, limits(never), 1013, 2},
			{"still within 30 s of the list", 29 * time.Second, limits(never), 1013, 2},
			{"30 s on, a code the list lacks has it asked for again", time.Second, limits(never), 1013, 3},
			{"the future listed at 08:00, asked for after it: the list again, then its limits", 30 * time.Second, limits(listedNext), 200, 5},
			{"the future delivered at 08:00: from memory", 0, limits(delivering), 1013, 5},
			{"a listed one: from the venue", 0, limits("BTC-USDT-261225"), 200, 6},
		} {
			clk.Advance(st.advance)
			a := s.get(t, st.path)
			synctest.Wait() // a list asked for in the background has come
			code, msg := a.errCode(t)
			if code != st.wantCode {
				t.Fatalf("%s: code %d %q, want %d", st.name, code, msg, st.wantCode)
			}
			if n := s.sb.Received(venueapi.PathPositionLimit); n != st.wantCalls {
				t.Fatalf("%s: the venue received %d position-limit calls in all, want %d", st.name, n, st.wantCalls)
			}
		}
	})
}

func TestWhileTheVenueCannotGiveTheListUnlistedCodesAreAskedOfIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(0)
		s := newStack(t, options{clock: clk})
		s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathPositionLimit: {Rate5xx: 1}}})
		for _, st := range []struct {
			name      string
			advance   time.Duration
			code      string
			fromVenue bool // the tiers answered by the venue, else from memory
		}{
			{"an unlisted swap: the venue says 1013 and the list fails", 0, "ZZA-USDT", true},
			{"another: no list to go by, so the venue again", 0, "ZZB-USDT", true},
			{"the list comes back 30 s on, after the next 1013", 30 * time.Second, "ZZC-USDT", true},
			{"then unlisted codes are answered from memory", 0, "ZZD-USDT", false},
		} {
			if st.advance > 0 {
				s.sb.SetFaults(sandbox.Faults{})
				clk.Advance(st.advance)
				time.Sleep(st.advance) // the venue client's failure memory runs on the bubble's clock
			}
			before := s.sb.Received(venueapi.PathTiers)
			a := s.get(t, venueapi.PathTiers+"?contract_code="+st.code)
			synctest.Wait()
			if code, msg := a.errCode(t); code != venueapi.CodeNoSuchContract {
				t.Fatalf("%s: code %d %q, want 1013", st.name, code, msg)
			}
			if asked := s.sb.Received(venueapi.PathTiers) > before; asked != st.fromVenue {
				t.Fatalf("%s: asked the venue %v, want %v", st.name, asked, st.fromVenue)
			}
		}
		if n := s.sb.Received(venueapi.PathPositionLimit); n != 2 {
			t.Fatalf("the list was asked for %d times, want 2: once failing, once 30 s later", n)
		}
	})
}

// grepLines returns the lines of text that hold word.
func grepLines(text, word string) string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// A 1013 names the parameter and the value the venue does not list, on each
// path that can answer it: from the venue the first time, from the list the
// next.
func TestAnUnlistedContractIsNamedWithItsParameter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, options{clock: newClock(0)})
		for _, tc := range []struct {
			name, path, want string
		}{
			{"candles", venueapi.PathKLine + "?contract_code=ZZZ-USDT&period=1min", "unknown contract_code: the venue does not list ZZZ-USDT"},
			{"tiers", venueapi.PathTiers + "?contract_code=ZZY-USDT", "unknown contract_code: the venue does not list ZZY-USDT"},
			{"limits of a code", venueapi.PathPositionLimit + "?contract_code=ZZX-USDT", "unknown contract_code: the venue does not list ZZX-USDT"},
			{"limits of a pair", venueapi.PathPositionLimit + "?pair=ZZW-USDT&business_type=futures", "unknown pair: the venue does not list ZZW-USDT"},
		} {
			for _, when := range []string{"first", "again"} {
				a := s.get(t, tc.path)
				synctest.Wait() // the list a 1013 asks for has come
				if code, msg := a.errCode(t); a.status != http.StatusOK || code != venueapi.CodeNoSuchContract || msg != tc.want {
					t.Errorf("%s, %s: HTTP %d, code %d %q; want HTTP 200, 1013 %q", tc.name, when, a.status, code, msg, tc.want)
				}
			}
		}
	})
}

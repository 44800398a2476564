package gateway_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
	"github.com/riskchart/riskchart/venueapi/sign"
)

// verdict reads a position-limit answer: its code (200 for data) and the
// contracts it holds.
func verdict(t testing.TB, a reply) (int, []string) {
	t.Helper()
	code, _ := a.errCode(t)
	if code != 200 {
		return code, nil
	}
	var env venueapi.LimitEnvelope
	if err := json.Unmarshal(a.body, &env); err != nil {
		t.Fatalf("decoding %.200s: %v", a.body, err)
	}
	codes := []string{}
	for _, p := range env.Data {
		codes = append(codes, p.ContractCode)
	}
	slices.Sort(codes)
	return 200, codes
}

func TestEveryCombinationIsAnsweredAsTheVenueAnswersItAndRefusalsCostNoCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		const directAccess, directSecret = "direct-access", "direct-secret-never-shown"
		s := newStack(t, options{clock: clk,
			sandbox: func(c *sandbox.Config) {
				// A key of the test's own, to ask the sandbox itself; budgets
				// that the grid does not reach, so that only the rules answer.
				c.Keys = append(c.Keys, sandbox.Key{Access: directAccess, Secret: directSecret, Read: true})
				c.PrivateLimit = venueapi.Limit{Requests: 1 << 20, Per: 3 * time.Second}
			},
			venue: func(c *venue.Config) { c.PrivateQuota = venueapi.Limit{Requests: 1 << 16, Per: 3 * time.Second} },
		})
		base, err := url.Parse(s.venueURL)
		if err != nil {
			t.Fatal(err)
		}
		host := sign.CanonicalHost(base.Scheme, base.Host)
		direct := func(params url.Values) reply {
			q := sign.SignedQuery(http.MethodGet, host, venueapi.PathPositionLimit, directAccess, []byte(directSecret), params, clk.Now())
			req, err := http.NewRequest(http.MethodGet, s.venueURL+venueapi.PathPositionLimit+"?"+q, nil)
			if err != nil {
				t.Fatal(err)
			}
			return send(t, s.from("127.0.0.1"), req)
		}
		var quarter string
		for _, m := range s.sb.Markets() {
			if m.Base == "BTC" && m.Type == venueapi.TypeQuarter {
				quarter = m.Code
			}
		}
		codes := []string{"", "BTC-USDT", "ZZZ-USDT", quarter, "BTC-USDT-991231", "BTC-USDT-CQ"}
		pairs := []string{"", "BTC-USDT", "SOL-USDT", "ZZZ-USDT"}
		types := []string{"", "swap", "this_week", "quarter"}
		businesses := []string{"", "swap", "futures", "all"}
		seen := map[int]int{}
		local := 0 // answers the gateway gave without a venue call
		for _, code := range codes {
			for _, pair := range pairs {
				for _, typ := range types {
					for _, business := range businesses {
						params := url.Values{}
						for k, v := range map[string]string{"contract_code": code, "pair": pair, "contract_type": typ, "business_type": business} {
							if v != "" {
								params.Set(k, v)
							}
						}
						name := params.Encode()
						wantCode, wantData := verdict(t, direct(params))
						synctest.Wait()
						before := s.sb.Received(venueapi.PathPositionLimit)
						gotCode, gotData := verdict(t, s.get(t, venueapi.PathPositionLimit+"?"+name))
						synctest.Wait() // a list asked for in the background has come
						calls := s.sb.Received(venueapi.PathPositionLimit) - before
						seen[wantCode]++
						if calls == 0 {
							local++
						}
						switch {
						case gotCode != wantCode || !slices.Equal(gotData, wantData):
							t.Errorf("%s: the gateway answered %d %v, the venue %d %v", name, gotCode, gotData, wantCode, wantData)
						case gotCode == venueapi.CodeInvalidInput && calls != 0:
							t.Errorf("%s: refused with 1030 after %d venue calls, want none", name, calls)
						}
					}
				}
			}
		}
		t.Logf("%d combinations: the venue answered %d with data, %d with 1013, %d with 1030; the gateway answered %d without a venue call",
			len(codes)*len(pairs)*len(types)*len(businesses), seen[200], seen[venueapi.CodeNoSuchContract], seen[venueapi.CodeInvalidInput], local)
	})
}

func TestASwapAskedForAsAFutureCostsNoVenueCall(t *testing.T) {
	s := newStack(t, options{clock: newClock(10)})
	for _, path := range []string{
		venueapi.PathPositionLimit + "?contract_code=BTC-USDT&business_type=futures",
		venueapi.PathPositionLimit + "?pair=BTC-USDT&contract_type=swap&business_type=futures",
	} {
		for range 10 {
			a := s.get(t, path)
			if code, msg := a.errCode(t); code != venueapi.CodeInvalidInput || !strings.Contains(msg, "business_type") {
				t.Fatalf("%s: code %d %q, want 1030 naming business_type", path, code, msg)
			}
		}
	}
	if n := s.sb.Received(venueapi.PathPositionLimit); n != 0 {
		t.Fatalf("20 refused requests cost %d venue calls, want 0", n)
	}
	if m := string(s.get(t, "/metrics").body); !strings.Contains(m, `riskchart_private_refused_locally_total{reason="combination"} 20`) {
		t.Fatalf("the local refusals are not counted:\n%s", grepLines(m, "refused_locally"))
	}
}

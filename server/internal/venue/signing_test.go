package venue_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// goldenQuery reads a signed query written by testdata/golden.sh, which
// signs with openssl, never with this code.
func goldenQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestSignedRequestsCarryTheGoldenQueryString(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name, base, golden, wantMethod, wantPath, wantBody string
		call                                               func(*venue.Client) error
	}{
		{
			name: "tiers sign the host with its port, and margin mode defaults to cross", base: "http://venue.test:9000",
			golden: "tiers-query.golden", wantMethod: "GET", wantPath: venueapi.PathTiers,
			call: func(c *venue.Client) error {
				_, err := c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"})
				return err
			},
		},
		{
			name: "position limits sign the host without its default port and send the parameters as a JSON body",
			base: "http://VENUE.test:80", golden: "limits-query.golden", wantMethod: "POST", wantPath: venueapi.PathPositionLimit,
			wantBody: `{"contract_code":"BTC-USDT-261225","business_type":"futures"}`,
			call: func(c *venue.Client) error {
				_, err := c.PositionLimits(context.Background(), venueapi.LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: "futures"})
				return err
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := canned(t, 200, nil, `{"code":200,"status":"ok","data":[],"ts":1}`)
			c := newClient(t, tt.base, srv.net, func(c *venue.Config) {
				c.AccessKey, c.SecretKey = "e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx", "b0xxxxxx-c6xxxxxx-94xxxxxx-dxxxx"
				c.Now = func() time.Time { return at.In(time.FixedZone("UTC+5", 5*3600)) } // signed in UTC whatever the zone
				c.HTTPClient = srv.dialing()
			})
			if err := tt.call(c); err != nil {
				t.Fatal(err)
			}
			got := srv.requests()[0]
			if want := goldenQuery(t, tt.golden); got.rawQuery != want {
				t.Fatalf("query string:\n got %s\nwant %s", got.rawQuery, want)
			}
			if got.method != tt.wantMethod || got.path != tt.wantPath || string(got.body) != tt.wantBody {
				t.Fatalf("sent %s %s with body %q, want %s %s with %q", got.method, got.path, got.body, tt.wantMethod, tt.wantPath, tt.wantBody)
			}
			if tt.wantBody != "" && got.contentType != "application/json" {
				t.Fatalf("body sent as %q, want application/json", got.contentType)
			}
		})
	}
}

func TestKLineIsSentUnsignedWithItsParametersEncoded(t *testing.T) {
	srv := canned(t, 200, nil, klineOK)
	c := srv.client(t, nil)
	if _, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT-CQ", Period: venueapi.Period4Hour, From: 1767225600, To: 1767240000, Range: true}); err != nil {
		t.Fatal(err)
	}
	got := srv.requests()[0]
	if want := "contract_code=BTC-USDT-CQ&from=1767225600&period=4hour&to=1767240000"; got.method != "GET" || got.path != venueapi.PathKLine || got.rawQuery != want {
		t.Fatalf("sent %s %s?%s, want GET %s?%s", got.method, got.path, got.rawQuery, venueapi.PathKLine, want)
	}
}

func TestRequestsGoOnlyUnderTheBaseURL(t *testing.T) {
	srv := canned(t, 200, nil, klineOK)
	c := newClient(t, srv.URL+"/prefix/", srv.net, nil)
	if _, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 1}); err != nil {
		t.Fatal(err)
	}
	if got := srv.requests()[0].path; got != "/prefix"+venueapi.PathKLine {
		t.Fatalf("sent to %s, want under /prefix", got)
	}
}

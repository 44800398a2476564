package venue_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// A venue call that succeeds is a debug line (the gateway's request line
// says when one was a miss); one the venue fails is an info line of its own.
func TestAVenueCallIsLoggedAtInfoOnlyWhenTheVenueFailsIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults sandbox.Faults
		lines  int
	}{
		{"a call that succeeds", sandbox.Faults{}, 0},
		{"a call the venue fails", sandbox.Faults{PerPath: map[string]sandbox.Fault{"": {Rate5xx: 1}}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &servertest.Buffer{}
			c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, func(vc *venue.Config) {
				vc.Retries = -1
				vc.Logger = slog.New(slog.NewJSONHandler(info, &slog.HandlerOptions{Level: slog.LevelInfo}))
			})
			sb.SetFaults(tc.faults)
			c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "ETH-USDT", Period: venueapi.Period1Min, Size: 2})
			if n := strings.Count(info.String(), `"msg":"venue call"`); n != tc.lines {
				t.Fatalf("%d venue call lines at info level, want %d:\n%s", n, tc.lines, info.String())
			}
			if tc.lines > 0 && !strings.Contains(info.String(), `"op":"GET `+venueapi.PathKLine+`"`) {
				t.Fatalf("the line does not name the call:\n%s", info.String())
			}
		})
	}
}

package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/venueapi"
)

// A venue call a request started and left (its browser gone) goes on,
// detached, for the requests that share it. Once run has returned it must
// not go on: it would spend the Redis client and the venue run has closed,
// and log about them, after run returned, as if Redis had failed.
func TestRunReturnsWithNoVenueCallOfItsOwnGoingOn(t *testing.T) {
	redis := redistest.Start(t)
	v := startCountingVenue(t, "DOGE-USDT")
	env := v.env()
	env["RISKCHART_REDIS_URL"] = redis.URL()
	s := startServer(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+venueapi.PathKLine+"?contract_code=DOGE-USDT&period=1min&size=5", nil)
	asked := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		asked <- err
	}()
	select {
	case <-v.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not reach the venue within 10 s")
	}
	cancel() // the browser leaves; the venue call goes on for the others
	<-asked
	if err := s.Stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	returned := len(s.Log.String())
	v.letGo() // the venue answers, after run returned
	time.Sleep(time.Second)
	if after := s.Log.String()[returned:]; strings.Contains(after, `"level":"WARN"`) || strings.Contains(after, `"level":"ERROR"`) {
		t.Errorf("logged after run returned:\n%s", after)
	}
}

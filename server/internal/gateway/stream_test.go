package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// newStreamStack is newStack whose streams end when the test does: a
// stream's connection is the gateway's, not net/http's, and a client that
// left is found only by the next write to it.
func newStreamStack(t *testing.T, o options) *stack {
	t.Helper()
	life := gateway.NewStreams()
	set := o.gateway
	o.gateway = func(c *gateway.Config) {
		c.Streams = life
		if set != nil {
			set(c)
		}
		life = c.Streams
	}
	s := newStack(t, o)
	t.Cleanup(func() { life.Close(context.Background()) }) // before the stack's own
	return s
}

// sseEvent is one block of a stream, as a browser's EventSource parses it.
type sseEvent struct {
	id, event, data, retry string
	comment                bool // a comment alone: the heartbeat
}

// candle decodes a candle event's data: the channel name and the candle.
func (e sseEvent) candle(t testing.TB) (string, venueapi.Candle) {
	t.Helper()
	var ch struct {
		Ch string `json:"ch"`
	}
	var c venueapi.Candle
	if err := json.Unmarshal([]byte(e.data), &ch); err != nil {
		t.Fatalf("event data %q: %v", e.data, err)
	}
	if err := json.Unmarshal([]byte(e.data), &c); err != nil {
		t.Fatalf("event data %q: %v", e.data, err)
	}
	return ch.Ch, c
}

// sse is a stream a test reads: its events arrive on a channel as the
// server writes them, until the stream ends (the channel closes).
type sse struct {
	status int
	header http.Header
	body   []byte // of a refusal
	events chan sseEvent
	close  func()
}

// stream opens the candle stream of query from the client address ip.
// header is name, value pairs.
func (s *stack) stream(t testing.TB, ip, query string, header ...string) *sse {
	t.Helper()
	res, closeRes := s.openStream(t, ip, query, header...)
	st := &sse{status: res.StatusCode, header: res.Header, events: make(chan sseEvent, 4096), close: closeRes}
	if res.StatusCode != http.StatusOK {
		st.body = sandboxtest.Body(t, res, nil)
		close(st.events)
		return st
	}
	go func() {
		defer close(st.events)
		r := bufio.NewReader(res.Body)
		var e sseEvent
		blank := true
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			name, value, _ := strings.Cut(line, ": ")
			switch {
			case line == "":
				if !blank {
					st.events <- e
				}
				e, blank = sseEvent{}, true
				continue
			case strings.HasPrefix(line, ":"):
				e.comment = true
			case name == "id":
				e.id = value
			case name == "event":
				e.event = value
			case name == "data":
				e.data = value
			case name == "retry":
				e.retry = value
			default:
				e.data = "unexpected line " + line
			}
			blank = false
		}
	}()
	return st
}

// openStream sends the stream's request and returns the answer unread: a
// test's stalled subscriber reads nothing more.
func (s *stack) openStream(t testing.TB, ip, query string, header ...string) (*http.Response, func()) {
	t.Helper()
	tr := s.from(ip)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+venueapi.PathStreamKLine+"?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stop := func() {
		cancel()
		res.Body.Close()
		tr.CloseIdleConnections()
	}
	t.Cleanup(stop) // before the stack's: the server waits for its streams to end
	return res, stop
}

// received returns the events the stream has delivered so far, once
// everything in the bubble has settled.
func (st *sse) received() []sseEvent {
	synctest.Wait()
	var out []sseEvent
	for {
		select {
		case e, ok := <-st.events:
			if !ok {
				return out
			}
			out = append(out, e)
		default:
			return out
		}
	}
}

// ended reports whether the server has ended the stream.
func (st *sse) ended() bool {
	synctest.Wait()
	select {
	case e, ok := <-st.events:
		if ok {
			st.events <- e // not ours to take; tests ask this once the events are read
		}
		return !ok
	default:
		return false
	}
}

// candles are the candle events among events.
func candles(events []sseEvent) []sseEvent {
	var out []sseEvent
	for _, e := range events {
		if e.id != "" {
			out = append(out, e)
		}
	}
	return out
}

// idsOf are the candle ids of events.
func idsOf(t testing.TB, events []sseEvent) []int64 {
	t.Helper()
	var out []int64
	for _, e := range candles(events) {
		_, c := e.candle(t)
		out = append(out, c.ID)
	}
	return out
}

// pushInterval moves the test's clock past the refresh interval and lets the
// stream's pump look at the cache.
func pushInterval(clk *clock) {
	clk.Advance(time.Second)
	time.Sleep(100 * time.Millisecond) // a tenth of the refresh interval: the pump looks
	synctest.Wait()
}

const btc1min = "contract_code=BTC-USDT&period=1min"

func TestAStreamSendsTheLatestCandlesThenEachChangeAsTheVenueWroteIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(30)
		s := newStreamStack(t, options{clock: clk})
		st := s.stream(t, "127.0.0.1", btc1min)
		if st.status != http.StatusOK || st.header.Get("Content-Type") != "text/event-stream" || st.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("HTTP %d %v, want 200 text/event-stream, no-store", st.status, st.header)
		}
		first := st.received()
		now := venueapi.Period1Min.Start(clk.Now().Unix())
		if len(first) != 4 || first[0].retry != "2000" || first[1].event != "state" || first[1].data != `{"ch":"market.BTC-USDT.kline.1min","stale":false}` {
			t.Fatalf("the stream began %+v, want a retry hint, the state, then the candle before the current one and the current one", first)
		}
		if ids := idsOf(t, first); fmt.Sprint(ids) != fmt.Sprint([]int64{now - 60, now}) {
			t.Fatalf("the first candles are %v, want %d and %d", ids, now-60, now)
		}
		venue := s.direct(t, btc1min+"&size=2")
		for i, e := range candles(first) {
			ch, c := e.candle(t)
			// The venue's own bytes: the record follows the channel name unchanged.
			raw, _ := json.Marshal(venue.Data[i])
			if ch != "market.BTC-USDT.kline.1min" || e.data != `{"ch":"market.BTC-USDT.kline.1min",`+string(raw[1:]) || !strings.HasPrefix(e.id, strconv.FormatInt(c.ID, 10)+".") {
				t.Errorf("event %d: id %q data %s, want the venue's record %s with its channel, under its id and a version", i, e.id, e.data, raw)
			}
		}
		var versions []string
		for range 5 {
			pushInterval(clk)
			got := st.received()
			if len(got) != 1 || got[0].id == "" {
				t.Fatalf("after a second: %+v, want the current candle, changed", got)
			}
			_, c := got[0].candle(t)
			if want := s.direct(t, btc1min+"&size=1").Data[0]; !c.Close.Equal(want.Close) || !c.Vol.Equal(want.Vol) || c.ID != now {
				t.Fatalf("pushed %+v, the venue holds %+v", c, want)
			}
			versions = append(versions, got[0].id)
		}
		for i := 1; i < len(versions); i++ {
			if versions[i] == versions[i-1] {
				t.Errorf("two pushes of different records share the event id %s", versions[i])
			}
		}
		time.Sleep(5 * time.Second) // the clock of the venue stands still: nothing changes, nothing is pushed
		if got := st.received(); len(got) != 0 {
			t.Errorf("with nothing changed the stream sent %+v", got)
		}
	})
}

func TestAStreamIsRefusedAsTheKLinePathRefusesBeforeItStarts(t *testing.T) {
	{
		s := newStreamStack(t, options{})
		for _, tc := range []struct {
			name, query string
			header      []string
			status      int
			code        int
			inMsg       string
		}{
			{"no contract code", "period=1min", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "contract_code"},
			{"a lower-case code", "contract_code=btc-usdt&period=1min", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "contract_code"},
			{"an unknown period", "contract_code=BTC-USDT&period=2min", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "period"},
			{"a period given twice", "contract_code=BTC-USDT&period=1min&period=5min", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "period"},
			{"a parameter of the KLine path", "contract_code=BTC-USDT&period=1min&size=5", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "size"},
			{"a broken escape", "contract_code=BTC-USDT&period=%ZZ", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "period"},
			{"a value with no name", "=x&contract_code=BTC-USDT&period=1min", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "invalid query:"},
			{"a broken escape with no name", "contract_code=BTC-USDT&period=1min&=%ZZ", nil, http.StatusBadRequest, venueapi.CodeInvalidInput, "invalid query:"},
			{"a Last-Event-ID it never sent", btc1min, []string{"Last-Event-ID", "yesterday"}, http.StatusBadRequest, venueapi.CodeInvalidInput, "Last-Event-ID"},
			{"a contract the venue does not list", "contract_code=BTC-USDT-991231&period=1min", nil, http.StatusNotFound, venueapi.CodeNoSuchContract, "unknown contract_code: the venue does not list BTC-USDT-991231"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := s.klineCalls()
				st := s.stream(t, "127.0.0.1", tc.query, tc.header...)
				var env struct {
					Status  string `json:"status"`
					ErrCode int    `json:"err_code"`
					ErrMsg  string `json:"err_msg"`
				}
				json.Unmarshal(st.body, &env)
				if st.status != tc.status || env.Status != "error" || env.ErrCode != tc.code || !strings.Contains(env.ErrMsg, tc.inMsg) {
					t.Errorf("HTTP %d %s, want %d with the KLine path's envelope, code %d, naming %q", st.status, st.body, tc.status, tc.code, tc.inMsg)
				}
				if calls := s.klineCalls() - before; tc.code == venueapi.CodeInvalidInput && calls != 0 {
					t.Errorf("a bad query cost %d venue calls", calls)
				}
			})
		}
	}
}

// A dated future's stream ends at its delivery, when the venue no longer
// lists it (docs/venue.md#contract-codes): the browser, reconnecting, gets
// the KLine path's answer, 404 and 1013, and the series costs the venue no
// call more. A stream asked for after the delivery is refused so at once,
// whatever the gateway held of the series before.
func TestAFuturesStreamEndsAtItsDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock{t: time.Date(2026, 11, 27, 7, 59, 57, 0, time.UTC)}
		s := newStreamStack(t, options{clock: clk})
		const query = "contract_code=BTC-USDT-261127&period=1min"
		st := s.stream(t, "127.0.0.1", query)
		if st.status != http.StatusOK || len(candles(st.received())) == 0 {
			t.Fatalf("before the delivery: HTTP %d %s, want a stream with candles", st.status, st.body)
		}
		for i := 0; !st.ended(); i++ {
			if i == 10 {
				t.Fatalf("the stream still runs at %s, the future delivered at 08:00", clk.Now().Format(time.TimeOnly))
			}
			pushInterval(clk)
			st.received()
		}
		calls := s.klineCalls()
		for range 5 {
			pushInterval(clk)
		}
		if n := s.klineCalls() - calls; n != 0 {
			t.Errorf("the ended stream's series cost %d venue calls in the 5 s after", n)
		}
		again := s.stream(t, "127.0.0.1", query)
		var env struct {
			ErrCode int    `json:"err_code"`
			ErrMsg  string `json:"err_msg"`
		}
		json.Unmarshal(again.body, &env)
		if again.status != http.StatusNotFound || env.ErrCode != venueapi.CodeNoSuchContract {
			t.Errorf("reconnecting after the delivery: HTTP %d %s, want 404 with code %d", again.status, again.body, venueapi.CodeNoSuchContract)
		}
		if kline := s.get(t, venueapi.PathKLine+"?"+query+"&size=1"); !strings.Contains(string(kline.body), `"err_code":1013`) {
			t.Errorf("the KLine path after the delivery: %s, want 1013 as the stream said", kline.body)
		}
	})
}

func TestAThousandSubscribersCostOneVenueCallPerRefreshInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStreamStack(t, options{clock: clk})
		const subscribers = 1000
		streams := make([]*sse, subscribers)
		// 40 addresses of 25 streams each: within the default cap per client.
		concurrently(subscribers, func(i int) { streams[i] = s.stream(t, fmt.Sprintf("127.0.1.%d", i%40+1), btc1min) })
		for i, st := range streams {
			if got := st.received(); st.status != http.StatusOK || len(candles(got)) != 2 {
				t.Fatalf("subscriber %d: HTTP %d, %d candles first", i, st.status, len(candles(got)))
			}
		}
		if n := s.klineCalls(); n != 1 {
			t.Fatalf("%d subscribers cost %d venue calls to start, want 1", subscribers, n)
		}
		for interval := 1; interval <= 5; interval++ {
			pushInterval(clk)
			time.Sleep(800 * time.Millisecond) // the rest of the interval: the pump looks again, the cache is fresh
			for i, st := range streams {
				if got := candles(st.received()); len(got) != 1 {
					t.Fatalf("interval %d, subscriber %d: %d candle events, want the one change", interval, i, len(got))
				}
			}
			if n := s.klineCalls(); n != int64(1+interval) {
				t.Fatalf("after %d intervals, %d venue calls, want one per interval (%d)", interval, n, 1+interval)
			}
		}
		// A series with no subscriber left is not refreshed: the next push
		// finds them gone.
		for _, st := range streams {
			st.close()
		}
		pushInterval(clk)
		before := s.klineCalls()
		for range 3 {
			pushInterval(clk)
		}
		if n := s.klineCalls() - before; n != 0 {
			t.Errorf("%d venue calls for a series nobody subscribes to", n)
		}
		if m := string(s.get(t, "/metrics").body); !strings.Contains(m, "riskchart_streams_open 0") || !strings.Contains(m, "riskchart_stream_series 0") {
			t.Errorf("after every subscriber left, the metrics say:\n%s", grepLines(m, "riskchart_stream"))
		}
	})
}

func TestAReconnectionGetsTheCandlesItMissedInOrderThenLiveOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(50)
		s := newStreamStack(t, options{clock: clk})
		t0 := venueapi.Period1Min.Start(clk.Now().Unix())
		first := s.stream(t, "127.0.0.1", btc1min)
		first.received()
		clk.Advance(10 * time.Second) // the candle t0 closes, t0+60 opens
		time.Sleep(100 * time.Millisecond)
		var last string
		for _, e := range candles(first.received()) {
			if _, c := e.candle(t); c.ID == t0 {
				last = e.id // t0 as it closed: the last event this client reads
			}
		}
		if last == "" {
			t.Fatal("the candle that closed was not pushed as it closed")
		}
		first.close()
		clk.Advance(2 * time.Minute)       // t0+60 and t0+120 close unseen; t0+180 is open
		time.Sleep(100 * time.Millisecond) // the pump's next push finds the stream gone, and stops
		synctest.Wait()

		st := s.stream(t, "127.0.0.1", btc1min, "Last-Event-ID", last)
		got := st.received()
		if ids := idsOf(t, got); fmt.Sprint(ids) != fmt.Sprint([]int64{t0 + 60, t0 + 120, t0 + 180}) {
			t.Fatalf("after %s the stream sent candles %v, want the three missed: %d, %d, %d", last, ids, t0+60, t0+120, t0+180)
		}
		venue := s.direct(t, btc1min+"&size=3").Data
		for i, e := range candles(got) {
			if _, c := e.candle(t); !c.Close.Equal(venue[i].Close) || !c.Vol.Equal(venue[i].Vol) {
				t.Errorf("candle %d pushed as %+v, the venue holds %+v", c.ID, c, venue[i])
			}
		}
		pushInterval(clk)
		if ids := idsOf(t, st.received()); fmt.Sprint(ids) != fmt.Sprint([]int64{t0 + 180}) {
			t.Errorf("then %v, want the current candle live", ids)
		}
		// A client that saw the current candle as it is gets nothing again.
		cur := candles(got)[2].id
		pushInterval(clk)
		again := s.stream(t, "127.0.0.2", btc1min, "Last-Event-ID", cur)
		if ids := idsOf(t, again.received()); len(ids) != 1 || ids[0] != t0+180 {
			t.Errorf("after the current candle's older version, %v, want its newer one alone", ids)
		}
		up := candles(st.received())
		same := s.stream(t, "127.0.0.3", btc1min, "Last-Event-ID", up[len(up)-1].id)
		if ids := idsOf(t, same.received()); len(ids) != 0 {
			t.Errorf("a client up to date got candles %v again", ids)
		}
	})
}

func TestAStalledSubscriberIsDroppedWhileTheOthersKeepTheirPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(0)
		s := newStreamStack(t, options{clock: clk})
		res, _ := s.openStream(t, "127.0.0.9", btc1min) // reads nothing after the headers
		if res.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d", res.StatusCode)
		}
		readers := []*sse{s.stream(t, "127.0.0.1", btc1min), s.stream(t, "127.0.0.2", btc1min)}
		for _, st := range readers {
			st.received()
		}
		for interval := 1; interval <= 40; interval++ {
			pushInterval(clk)
			for i, st := range readers {
				if got := candles(st.received()); len(got) != 1 {
					t.Fatalf("interval %d, reader %d: %d candle events, want the one change", interval, i, len(got))
				}
			}
		}
		m := string(s.get(t, "/metrics").body)
		if !strings.Contains(m, "riskchart_streams_dropped_total 1") {
			t.Errorf("the stalled subscriber was not dropped:\n%s", grepLines(m, "riskchart_stream"))
		}
		time.Sleep(10 * time.Second) // its last write gives up
		if m := string(s.get(t, "/metrics").body); !strings.Contains(m, "riskchart_streams_open 2") {
			t.Errorf("the stalled subscriber's stream is still open:\n%s", grepLines(m, "riskchart_stream"))
		}
	})
}

func TestStreamsPastTheCapsAreRefusedWith429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStreamStack(t, options{clock: newClock(30), gateway: func(c *gateway.Config) { c.MaxStreams, c.ClientStreams = 3, 2 }})
		for _, ip := range []string{"127.0.0.1", "127.0.0.1", "127.0.0.2"} {
			if st := s.stream(t, ip, btc1min); st.status != http.StatusOK {
				t.Fatalf("a stream within the caps: HTTP %d %s", st.status, st.body)
			}
		}
		for _, tc := range []struct{ name, ip, inMsg string }{
			{"a third stream of one client", "127.0.0.1", "from this client"},
			{"a fourth stream in all", "127.0.0.3", "as many streams open as it takes"},
		} {
			st := s.stream(t, tc.ip, "contract_code=ETH-USDT&period=5min")
			code, msg := sandboxtest.ErrCode(t, st.body)
			if st.status != http.StatusTooManyRequests || code != venueapi.CodeRateLimited || !strings.Contains(msg, tc.inMsg) || st.header.Get("Retry-After") == "" {
				t.Errorf("%s: HTTP %d %s (Retry-After %q), want 429 with 1032 saying %q, and Retry-After", tc.name, st.status, st.body, st.header.Get("Retry-After"), tc.inMsg)
			}
			// The wait in the venue's headers too (docs/venue.md#rate-limit-headers).
			if h := st.header; h.Get("Retry-After") != "15" || h.Get("Ratelimit-Remaining") != "0" || h.Get("Ratelimit-Reset") != "15000" {
				t.Errorf("%s: Retry-After %q ratelimit-remaining %q ratelimit-reset %q, want 15, 0, 15000",
					tc.name, h.Get("Retry-After"), h.Get("Ratelimit-Remaining"), h.Get("Ratelimit-Reset"))
			}
		}
	})
}

func TestAnIdleStreamGetsAHeartbeatEvery15Seconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStreamStack(t, options{clock: newClock(30)}) // the venue's clock stands still: no candle changes
		st := s.stream(t, "127.0.0.1", btc1min)
		st.received()
		time.Sleep(15*time.Second - time.Millisecond)
		if got := st.received(); len(got) != 0 {
			t.Fatalf("before 15 s: %+v", got)
		}
		for beat := 1; beat <= 3; beat++ {
			time.Sleep(time.Millisecond)
			if got := st.received(); len(got) != 1 || !got[0].comment {
				t.Fatalf("heartbeat %d: %+v, want one comment", beat, got)
			}
			time.Sleep(15*time.Second - time.Millisecond)
		}
	})
}

func TestShutdownEndsEveryStreamWithARetryHint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		life := gateway.NewStreams()
		s := newStreamStack(t, options{clock: newClock(30), gateway: func(c *gateway.Config) { c.Streams = life }})
		streams := []*sse{s.stream(t, "127.0.0.1", btc1min), s.stream(t, "127.0.0.2", "contract_code=ETH-USDT&period=5min")}
		for _, st := range streams {
			st.received()
		}
		closed := make(chan error, 1)
		go func() { closed <- life.Close(context.Background()) }()
		for i, st := range streams {
			got := st.received()
			ms, err := 0, error(nil)
			if len(got) > 0 {
				ms, err = strconv.Atoi(got[0].retry)
			}
			if len(got) != 1 || err != nil || ms < 1000 || ms > 5000 || !st.ended() {
				t.Errorf("stream %d at shutdown: %+v, ended %v; want a retry hint of 1 to 5 s, then the end", i, got, st.ended())
			}
		}
		if err := <-closed; err != nil {
			t.Errorf("closing the streams: %v", err)
		}
		st := s.stream(t, "127.0.0.1", btc1min)
		if code, _ := sandboxtest.ErrCode(t, st.body); st.status != http.StatusServiceUnavailable || code != venueapi.CodeBusy || st.header.Get("Retry-After") == "" {
			t.Errorf("a stream asked for while the server shuts down: HTTP %d %s, want 503 with 1004 and Retry-After", st.status, st.body)
		}
	})
}

func TestAStreamSaysWhenItsCandlesAreStaleAndWhenTheyAreFreshAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStreamStack(t, options{clock: clk})
		st := s.stream(t, "127.0.0.1", btc1min)
		st.received()
		s.sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathKLine: {Rate5xx: 1}}})
		pushInterval(clk)
		if got := st.received(); len(got) != 1 || got[0].event != "state" || got[0].data != `{"ch":"market.BTC-USDT.kline.1min","stale":true}` {
			t.Fatalf("with the venue failing: %+v, want the stale state", got)
		}
		s.sb.SetFaults(sandbox.Faults{})
		var got []sseEvent
		for range 5 { // the venue client's breaker tries again within a few seconds
			clk.Advance(time.Second)
			time.Sleep(time.Second)
			got = append(got, st.received()...)
		}
		if len(got) < 2 || got[0].id == "" || got[1].event != "state" || got[1].data != `{"ch":"market.BTC-USDT.kline.1min","stale":false}` {
			t.Errorf("once the venue answers: %+v, want the candle that changed, then the state fresh", got)
		}
	})
}

// streamInto serves BTC-USDT 1min's stream from h into a recorder; leave
// ends the request and waits for the handler to return.
func streamInto(h http.Handler) (rec *httptest.ResponseRecorder, leave func()) {
	rec = httptest.NewRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1"+venueapi.PathStreamKLine+"?"+btc1min, nil)
	done := make(chan struct{})
	go func() { defer close(done); h.ServeHTTP(rec, req) }()
	return rec, func() { cancel(); <-done }
}

func TestAStreamNetHTTPKeepsIsServedFromItsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(30)
		n := sandboxtest.NewNetwork()
		base, _ := sandboxtest.StartOn(t, n, sandbox.Config{Now: clk.Now})
		client := venueOn(t, n, venue.Config{BaseURL: base, Retries: -1, Now: clk.Now}, nil)
		h, err := gateway.New(gateway.Config{Venue: client, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		// A ResponseRecorder, like an HTTP/2 stream, cannot be hijacked.
		rec, leave := streamInto(h)
		synctest.Wait() // the stream has begun
		clk.Advance(time.Second)
		time.Sleep(100 * time.Millisecond) // the pump pushes the change
		synctest.Wait()
		leave()
		body := rec.Body.String()
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/event-stream" || !rec.Flushed ||
			!strings.HasPrefix(body, "retry: 2000\n\n") || strings.Count(body, "\nid: ") != 3 || !strings.Contains(body, "event: state") {
			t.Errorf("HTTP %d %v flushed %v:\n%s\nwant the stream: a retry hint, two candles, the state, the change", rec.Code, rec.Header(), rec.Flushed, body)
		}
	})
}

// TestAStreamOfASeriesTheVenueAnswersWithoutCandlesStartsAndWaits: the venue
// may answer a KLine call with no candles ("data" is optional,
// docs/venue.md#kline; a contract listed but not traded yet). The KLine path
// answers that as an empty list; the stream must start too, with its state,
// and push the candles once the venue has some, rather than panic in its
// pump.
func TestAStreamOfASeriesTheVenueAnswersWithoutCandlesStartsAndWaits(t *testing.T) {
	for name, empty := range map[string]string{
		"an empty list": `{"ch":"market.BTC-USDT.kline.1min","status":"ok","data":[],"ts":1}`,
		"no data":       `{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := newClock(30)
				current := venueapi.Period1Min.Start(clk.Now().Unix())
				var trading atomic.Bool
				n := sandboxtest.NewNetwork()
				venueSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if !trading.Load() {
						w.Write([]byte(empty))
						return
					}
					w.Write([]byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[{"id":` + strconv.FormatInt(current, 10) +
						`,"open":1,"close":1,"low":1,"high":1,"amount":0,"vol":0,"trade_turnover":0,"count":0}]}`))
				}))
				venueSrv.Listener = n.Listen()
				venueSrv.Start()
				t.Cleanup(venueSrv.Close)
				client := venueOn(t, n, venue.Config{BaseURL: venueSrv.URL, Retries: -1, Now: clk.Now}, nil)
				life := gateway.NewStreams()
				h, err := gateway.New(gateway.Config{Venue: client, Now: clk.Now, Streams: life})
				if err != nil {
					t.Fatal(err)
				}
				rec, leave := streamInto(h)
				synctest.Wait()
				for range 3 { // the pump looks again, still nothing
					clk.Advance(time.Second)
					time.Sleep(time.Second)
					synctest.Wait()
				}
				trading.Store(true)
				clk.Advance(time.Second)
				time.Sleep(time.Second)
				synctest.Wait()
				leave()
				life.Close(context.Background())
				body := rec.Body.String()
				if rec.Code != http.StatusOK || !strings.Contains(body, `data: {"ch":"market.BTC-USDT.kline.1min","stale":false}`) ||
					!strings.Contains(body, "\nid: "+strconv.FormatInt(current, 10)+".") {
					t.Errorf("HTTP %d:\n%s\nwant the stream: its state, then the first candle once the venue has it", rec.Code, body)
				}
			})
		})
	}
}

// A contract-type code's stream names the future its candles are, as its
// KLine answers do (docs/decisions.md#contract-type-codes): its state event
// says the delivery, and when the code names the next future, a state event
// naming the new delivery comes before that future's first candle, so that
// a chart loads the new future's candles rather than drawing them after the
// old one's.
func TestATypeCodesStreamSaysWhenItNamesTheNextFuture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		friday := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
		clk := &clock{t: friday.Add(-1500 * time.Millisecond)}
		s := newStreamStack(t, options{clock: clk})
		st := s.stream(t, "127.0.0.1", "contract_code=BTC-USDT-CW&period=1day")
		state := func(delivery time.Time) string {
			return `{"ch":"market.BTC-USDT-CW.kline.1day","stale":false,"delivery":` + strconv.FormatInt(delivery.Unix(), 10) + `}`
		}
		first := st.received()
		if len(first) < 2 || first[1].event != "state" || first[1].data != state(friday.AddDate(0, 0, -7)) {
			t.Fatalf("the stream starts with %+v, want the state naming the last delivery, %s, then the candles", first, state(friday.AddDate(0, 0, -7)))
		}
		noState := func(when string, events []sseEvent) {
			for _, e := range events {
				if e.event == "state" {
					t.Errorf("%s: %+v; the state has nothing new to say", when, e)
				}
			}
		}
		pushInterval(clk) // 07:59:59.5
		before := st.received()
		noState("before the delivery", before)
		last := candles(append(first, before...))
		pushInterval(clk) // 08:00:00.5
		got := st.received()
		if len(got) < 2 || got[0].event != "state" || got[0].data != state(friday) || len(candles(got)) != len(got)-1 {
			t.Errorf("across the delivery the stream sends %+v, want the state naming the delivery, %s, then the next future's candles", got, state(friday))
		}
		pushInterval(clk)
		noState("after the delivery", st.received())
		// A browser whose stream broke before the delivery resumes after it:
		// the state naming the new future comes before the candles it missed,
		// so that it does not draw them after the old future's.
		resumed := s.stream(t, "127.0.0.2", "contract_code=BTC-USDT-CW&period=1day", "Last-Event-ID", last[len(last)-1].id)
		back := resumed.received()
		if len(back) < 3 || back[1].event != "state" || back[1].data != state(friday) || len(candles(back)) != len(back)-2 {
			t.Errorf("resumed after the delivery, the stream sends %+v, want a retry hint, the state naming the delivery, %s, then the candles missed", back, state(friday))
		}
	})
}

// docs/decisions.md#stream-drop-policy: a subscriber a whole buffer behind is
// dropped, and its stream ends, so that its browser reconnects and catches
// up. A slow reader, not a dead one, finishes its pending write well within
// the write timeout: its stream must still end, not go on with heartbeats
// and no candle ever again.
func TestADroppedSubscriberThatReadsAgainSeesItsStreamEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(0)
		s := newStreamStack(t, options{clock: clk})
		res, _ := s.openStream(t, "127.0.0.9", btc1min) // reads nothing until it has been dropped
		if res.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d", res.StatusCode)
		}
		reader := s.stream(t, "127.0.0.1", btc1min)
		reader.received()
		for range 40 { // more pushes than a subscriber's buffer holds, within one write timeout
			pushInterval(clk)
			reader.received()
		}
		if m := string(s.get(t, "/metrics").body); !strings.Contains(m, "riskchart_streams_dropped_total 1") {
			t.Fatalf("the stalled subscriber was not dropped:\n%s", grepLines(m, "riskchart_stream"))
		}
		ended := make(chan error, 1)
		go func() { // the slow reader reads again
			_, err := io.Copy(io.Discard, res.Body)
			ended <- err
		}()
		time.Sleep(time.Second) // far less than the 15 s heartbeat and the 10 s write timeout
		synctest.Wait()
		select {
		case err := <-ended:
			if err != nil {
				t.Fatalf("the dropped stream ended with %v, want its end (EOF)", err)
			}
		default:
			t.Fatal("a dropped subscriber's stream is still open once it reads again: its browser gets no candle and never reconnects")
		}
	})
}

// TestAQuietStreamAClientLeftIsEndedAtTheNextWrite
// (docs/decisions.md#stream-drop-policy): a client that left is noticed at
// the next write to it. On a series that does not change, that write is
// the heartbeat, 15 s on; over TCP the write after the client's close goes
// into the socket's buffer, so the stream, the client's share of streams
// and the series' pump (a venue call per refresh interval) must not wait
// for the second heartbeat. Real TCP: the in-memory network of the other
// stream tests fails the first write.
func TestAQuietStreamAClientLeftIsEndedAtTheNextWrite(t *testing.T) {
	t.Parallel() // real time, mostly waiting
	current := venueapi.Period1Min.Start(time.Now().Unix())
	quiet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ch":"market.BTC-USDT.kline.1min","status":"ok","ts":1,"data":[{"id":` + strconv.FormatInt(current, 10) +
			`,"open":1,"close":1,"low":1,"high":1,"amount":0,"vol":0,"trade_turnover":0,"count":0}]}`))
	}))
	defer quiet.Close()
	vc, err := venue.New(venue.Config{BaseURL: quiet.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	life := gateway.NewStreams()
	h, err := gateway.New(gateway.Config{Venue: vc, Streams: life})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer life.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+venueapi.PathStreamKLine+"?"+btc1min, nil)
	tr := &http.Transport{}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(res.Body)
	r.ReadString('\n')
	cancel()
	res.Body.Close()
	tr.CloseIdleConnections()
	open := func() string {
		res, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "riskchart_streams_open ") {
				return sc.Text()
			}
		}
		return ""
	}
	start := time.Now()
	for time.Since(start) < 25*time.Second { // the heartbeat, and a margin short of the second one
		if open() == "riskchart_streams_open 0" {
			t.Logf("released after %s", time.Since(start).Round(time.Second))
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("%s 25 s after its only client left, past the next write to it (the heartbeat at 15 s)", open())
}

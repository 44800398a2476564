package gateway_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestKLineRejectsBadQueriesWithoutCallingTheVenue(t *testing.T) {
	s := newStack(t, options{})
	for _, tc := range []struct {
		name, query, param string
	}{
		{"no contract code", "period=1min&size=5", "contract_code"},
		{"a lower-case code", "contract_code=btc-usdt&period=1min", "contract_code"},
		{"a code that is a URL", "contract_code=" + url.QueryEscape("http://evil.example/x") + "&period=1min", "contract_code"},
		{"a code with a path in it", "contract_code=" + url.QueryEscape("BTC-USDT/../../admin") + "&period=1min", "contract_code"},
		{"no period", "contract_code=BTC-USDT&size=5", "period"},
		{"an unknown period", "contract_code=BTC-USDT&period=2min", "period"},
		{"a period given twice", "contract_code=BTC-USDT&period=1min&period=5min", "period"},
		{"size zero", "contract_code=BTC-USDT&period=1min&size=0", "size"},
		{"size over 2000", "contract_code=BTC-USDT&period=1min&size=2001", "size"},
		{"from without to", "contract_code=BTC-USDT&period=1min&from=1", "to"},
		{"to without from", "contract_code=BTC-USDT&period=1min&to=1", "from"},
		{"from after to", "contract_code=BTC-USDT&period=1min&from=200&to=100", "from"},
		{"a range over 2000 candles", "contract_code=BTC-USDT&period=1min&from=0&to=1000000", "to"},
		{"size with a broken escape", "contract_code=BTC-USDT&period=1min&size=%ZZ", "size"},
		{"size with a plus sign", "contract_code=BTC-USDT&period=1min&size=%2B5", "size"},
		{"size with a leading space", "contract_code=BTC-USDT&period=1min&size=+5", "size"},
		{"size with a leading zero", "contract_code=BTC-USDT&period=1min&size=05", "size"},
		{"from in exponent form", "contract_code=BTC-USDT&period=1min&from=1e3&to=6000", "from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, venueapi.PathKLine+"?"+tc.query)
			code, msg := a.errCode(t)
			if a.status != http.StatusOK || code != venueapi.CodeInvalidInput || !strings.Contains(msg, tc.param) || !bytes.Contains(a.body, []byte(`"status":"error"`)) {
				t.Errorf("HTTP %d %s, want HTTP 200 with the venue's envelope, code 1030, naming %s", a.status, a.body, tc.param)
			}
		})
	}
	if n := s.klineCalls(); n != 0 {
		t.Fatalf("the venue received %d requests", n)
	}
}

// dataOf returns the raw data array of a KLine answer.
func dataOf(t testing.TB, body []byte) json.RawMessage {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("decoding %.200s: %v", body, err)
	}
	return env.Data
}

func TestKLineAnswersAreTheVenuesOwnByteForByte(t *testing.T) {
	clk := newClock(30)
	s := newStack(t, options{clock: clk})
	now := clk.Now().Unix()
	closedTo := venueapi.Period5Min.Start(now) - 3600
	for _, tc := range []struct {
		name, query string
		wantCh      string
		wantLen     int
	}{
		{"the latest 300 minutes", "contract_code=BTC-USDT&period=1min&size=300", "market.BTC-USDT.kline.1min", 300},
		{"60min", "contract_code=ETH-USDT&period=60min&size=10", "market.ETH-USDT.kline.60min", 10},
		{"1hour, the same series, echoed as asked", "contract_code=ETH-USDT&period=1hour&size=10", "market.ETH-USDT.kline.1hour", 10},
		{"a contract-type code", "contract_code=BTC-USDT-CQ&period=1day&size=30", "market.BTC-USDT-CQ.kline.1day", 30},
		{"none of size, from, to: 150", "contract_code=SOL-USDT&period=15min", "market.SOL-USDT.kline.15min", 150},
		{"size wins over from and to", fmt.Sprintf("contract_code=SOL-USDT&period=15min&size=20&from=%d&to=%d", closedTo-3600, closedTo), "market.SOL-USDT.kline.15min", 20},
		{"a closed range", fmt.Sprintf("contract_code=XRP-USDT&period=5min&from=%d&to=%d", closedTo-99*300, closedTo), "market.XRP-USDT.kline.5min", 100},
		{"a range reaching now", fmt.Sprintf("contract_code=XRP-USDT&period=5min&from=%d&to=%d", now-3000, now+3000), "market.XRP-USDT.kline.5min", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, venueapi.PathKLine+"?"+tc.query)
			env := a.kline(t)
			if a.status != 200 || env.Ch != tc.wantCh || env.Status != "ok" || len(env.Data) != tc.wantLen || env.Ts != clk.Now().UnixMilli() {
				t.Fatalf("HTTP %d ch %q status %q %d candles ts %d, want %q ok %d candles ts now", a.status, env.Ch, env.Status, len(env.Data), env.Ts, tc.wantCh, tc.wantLen)
			}
			if want := dataOf(t, mustJSON(t, s.direct(t, tc.query))); !bytes.Equal(dataOf(t, a.body), want) {
				t.Fatalf("candles differ from the venue's:\n got %.300s\nwant %.300s", dataOf(t, a.body), want)
			}
		})
	}
}

// records counts the records of a KLine answer without decoding them: 1152
// browsers' worth of candles would cost the test most of its time.
func records(t testing.TB, body []byte) int {
	t.Helper()
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("decoding %.200s: %v", body, err)
	}
	return len(env.Data)
}

// mustJSON encodes a KLine envelope as the venue writes it.
func mustJSON(t testing.TB, env venueapi.KLineEnvelope) []byte {
	t.Helper()
	return env.AppendJSON(nil)
}

func TestManyBrowsersCostOneVenueCallPerSeriesPerRefreshInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.RefreshInterval = time.Second }})
		series := []string{"BTC-USDT&period=1min", "ETH-USDT&period=5min", "DOGE-USDT&period=1day"}
		steps := []struct {
			name      string
			advance   time.Duration
			sizes     []int
			wantCalls int64 // in all, since the start
		}{
			{"64 browsers per series at once", 0, []int{300}, 3},
			{"again within the interval, smaller sizes too", 0, []int{300, 150, 10, 1}, 3},
			{"half an interval later", 500 * time.Millisecond, []int{300, 2}, 3},
			{"an interval after the first call", 500 * time.Millisecond, []int{300, 150, 10}, 6},
			{"just short of the next", 999 * time.Millisecond, []int{300, 150}, 6},
			{"the next interval", time.Millisecond, []int{300, 10}, 9},
		}
		for _, st := range steps {
			clk.Advance(st.advance)
			concurrently(64*len(series), func(i int) {
				size := st.sizes[i%len(st.sizes)]
				a := s.get(t, fmt.Sprintf("%s?contract_code=%s&size=%d", venueapi.PathKLine, series[i%len(series)], size))
				if n := records(t, a.body); a.status != 200 || n != size {
					t.Errorf("%s: HTTP %d, %d candles, want %d", st.name, a.status, n, size)
				}
			})
			if n := s.klineCalls(); n != st.wantCalls {
				t.Fatalf("%s: the venue received %d calls in all, want %d (one per series per interval)", st.name, n, st.wantCalls)
			}
		}
	})
}

func TestRangesHeldAreServedWithoutTheVenueAndOnlyGapsAreFetched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(30)
		s := newStack(t, options{clock: clk})
		p := venueapi.Period5Min
		now := p.Start(clk.Now().Unix())
		at := func(k int64) int64 { return now + k*p.Seconds() } // k candles from the current one
		for _, st := range []struct {
			name     string
			from, to int64
			newCalls int64
		}{
			{"a cold range", at(-1299), at(-300), 1},
			{"inside it", at(-1199), at(-400), 0},
			{"back-scroll overlapping it: only the 500 older ones", at(-1799), at(-1100), 1},
			{"around what is held: the gap on each side", at(-2000), at(-101), 2},
			{"the same again", at(-2000), at(-101), 0},
			{"a range not aligned to candles", at(-1500) + 7, at(-1400) - 7, 0},
		} {
			before := s.klineCalls()
			query := fmt.Sprintf("contract_code=SOL-USDT&period=5min&from=%d&to=%d", st.from, st.to)
			a := s.get(t, venueapi.PathKLine+"?"+query)
			if got := s.klineCalls() - before; a.status != 200 || got != st.newCalls {
				t.Fatalf("%s: HTTP %d, %d venue calls, want %d", st.name, a.status, got, st.newCalls)
			}
			if want := dataOf(t, mustJSON(t, s.direct(t, query))); !bytes.Equal(dataOf(t, a.body), want) {
				t.Fatalf("%s: candles differ from the venue's", st.name)
			}
		}
	})
}

func TestACandleHeldWhileOpenIsFetchedAgainOnceItCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(30)
		s := newStack(t, options{clock: clk})
		p := venueapi.Period1Min
		open := p.Start(clk.Now().Unix())
		latest := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5").kline(t)
		snapshot := latest.Data[len(latest.Data)-1]
		if snapshot.ID != open {
			t.Fatalf("the last candle is %d, want the open one %d", snapshot.ID, open)
		}
		clk.Advance(3 * time.Minute)
		query := fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", open-120, open+60)
		final := s.direct(t, query)
		if final.Data[2].ID != open || final.Data[2].Vol.Equal(snapshot.Vol) {
			t.Fatalf("precondition: the sandbox's candle %d should have traded on after the snapshot", open)
		}
		a := s.get(t, venueapi.PathKLine+"?"+query)
		if !bytes.Equal(dataOf(t, a.body), dataOf(t, mustJSON(t, final))) {
			t.Fatalf("the range holds the snapshot of a candle taken while it was open:\n got %s\nwant %s", dataOf(t, a.body), dataOf(t, mustJSON(t, final)))
		}
		if cc := a.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Fatalf("Cache-Control %q: closed candles are immutable", cc)
		}
	})
}

// The venue answers "the latest N" by its clock when it handles the
// request, which may be a candle past the gateway's: a candle opened while
// the call waited for budget. A range asked for later holds every candle,
// and is never kept for a year with one missing.
func TestACandleTheLatestAnswerDidNotCoverIsFetchedForALaterRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(59) // the last second of a candle
		s := newStack(t, options{clock: clk, sandbox: func(c *sandbox.Config) {
			c.Now = func() time.Time { return clk.Now().Add(time.Minute) } // the venue a candle on
		}})
		p := venueapi.Period1Min
		current := p.Start(clk.Now().Unix())
		if a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=5"); a.status != 200 {
			t.Fatalf("the latest candles: HTTP %d %.200s", a.status, a.body)
		}
		clk.Advance(31 * time.Second)
		query := fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", current-10*60, current-60)
		a := s.get(t, venueapi.PathKLine+"?"+query)
		want := s.direct(t, query)
		if a.status != 200 || len(want.Data) != 10 || !bytes.Equal(dataOf(t, a.body), dataOf(t, mustJSON(t, want))) {
			var ids []int64
			for _, c := range a.kline(t).Data {
				ids = append(ids, (c.ID-current)/60)
			}
			t.Fatalf("HTTP %d, Cache-Control %q, candles %v from the current one; want the venue's 10, -10 to -1", a.status, a.header.Get("Cache-Control"), ids)
		}
	})
}

// A venue whose clock is behind ours still counts the candle before ours
// for a few seconds after ours opens (candles.SettleAfter): a range ending
// there, asked for then, is a snapshot, not kept for a year; asked for once
// it is final, it is the venue's final candles, immutable.
func TestARangeEndingAtACandleTheVenueStillCountsIsNotImmutable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(2)
		s := newStack(t, options{clock: clk, sandbox: func(c *sandbox.Config) {
			c.Now = func() time.Time { return clk.Now().Add(-5 * time.Second) }
		}})
		current := venueapi.Period1Min.Start(clk.Now().Unix())
		query := fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", current-10*60, current-60)
		if a := s.get(t, venueapi.PathKLine+"?"+query); a.status != 200 || strings.Contains(a.header.Get("Cache-Control"), "immutable") {
			t.Fatalf("2 s into our candle, the venue 5 s behind: HTTP %d, Cache-Control %q; want an answer not kept for good", a.status, a.header.Get("Cache-Control"))
		}
		clk.Advance(time.Minute)
		a, want := s.get(t, venueapi.PathKLine+"?"+query), s.direct(t, query)
		if !bytes.Equal(dataOf(t, a.body), dataOf(t, mustJSON(t, want))) || !strings.Contains(a.header.Get("Cache-Control"), "immutable") {
			t.Fatalf("a minute later: Cache-Control %q\n got %s\nwant the venue's final %s", a.header.Get("Cache-Control"), dataOf(t, a.body), dataOf(t, mustJSON(t, want)))
		}
	})
}

// While a venue whose clock is behind ours answers the latest candles up to
// the one before ours, the series holds its latest candles: requests within
// the refresh interval cost one venue call between them, not two each.
func TestAVenueBehindOurClockCostsOneCallPerRefreshInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(1)
		s := newStack(t, options{clock: clk, sandbox: func(c *sandbox.Config) {
			c.Now = func() time.Time { return clk.Now().Add(-3 * time.Second) }
		}, gateway: func(c *gateway.Config) { c.RefreshInterval = time.Second }})
		current := venueapi.Period1Min.Start(clk.Now().Unix())
		before := s.klineCalls()
		for i := range 10 {
			a := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=150")
			if k := a.kline(t); a.status != 200 || len(k.Data) != 150 || k.Data[149].ID != current-60 {
				t.Fatalf("request %d: HTTP %d, %d candles; want the venue's latest 150, to the candle before ours", i, a.status, len(k.Data))
			}
			clk.Advance(50 * time.Millisecond)
		}
		if n := s.klineCalls() - before; n != 1 {
			t.Fatalf("%d venue calls for ten requests within one refresh interval, want 1", n)
		}
	})
}

func TestAnswersCarryCacheControlAndETagFitForTheirContent(t *testing.T) {
	clk := newClock(30)
	s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.RefreshInterval = 2 * time.Second }})
	now := venueapi.Period1Min.Start(clk.Now().Unix())
	for _, tc := range []struct {
		name, query, cacheControl string
	}{
		{"the latest candles: one refresh interval", "contract_code=BTC-USDT&period=1min&size=300", "public, max-age=2"},
		{"a closed range: forever", fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", now-6000, now-60), "public, max-age=31536000, immutable"},
		{"a range reaching the open candle: one refresh interval", fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", now-600, now), "public, max-age=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, venueapi.PathKLine+"?"+tc.query)
			etag := a.header.Get("ETag")
			if a.status != 200 || a.header.Get("Cache-Control") != tc.cacheControl || etag == "" || a.header.Get("Content-Type") != "application/json" {
				t.Fatalf("HTTP %d Cache-Control %q ETag %q, want %q", a.status, a.header.Get("Cache-Control"), etag, tc.cacheControl)
			}
			for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag} {
				if b := s.get(t, venueapi.PathKLine+"?"+tc.query, "If-None-Match", inm); b.status != http.StatusNotModified || len(b.body) != 0 || b.header.Get("ETag") != etag {
					t.Fatalf("If-None-Match %s: HTTP %d, want 304 without a body", inm, b.status)
				}
			}
			if b := s.get(t, venueapi.PathKLine+"?"+tc.query, "If-None-Match", `"other"`); b.status != 200 {
				t.Fatalf("another tag: HTTP %d, want 200", b.status)
			}
		})
	}
	// The tag is of the candles, not of when they were written: the same
	// closed candles asked for later, in another envelope with another ts,
	// still revalidate.
	closed := fmt.Sprintf("%s?contract_code=BTC-USDT&period=1min&from=%d&to=%d", venueapi.PathKLine, now-6000, now-60)
	first := s.get(t, closed)
	clk.Advance(10 * time.Second)
	if b := s.get(t, closed); b.status != 200 || bytes.Equal(b.body, first.body) || b.header.Get("ETag") != first.header.Get("ETag") {
		t.Fatalf("the same candles 10 s later: HTTP %d, same body %v, ETag %s then %s; want another ts under the same tag",
			b.status, bytes.Equal(b.body, first.body), first.header.Get("ETag"), b.header.Get("ETag"))
	}
	if b := s.get(t, closed, "If-None-Match", first.header.Get("ETag")); b.status != http.StatusNotModified {
		t.Fatalf("the same candles 10 s later, revalidated: HTTP %d, want 304", b.status)
	}
	hour := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1hour&size=5").header.Get("ETag")
	min60 := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=60min&size=5").header.Get("ETag")
	if hour == min60 {
		t.Fatal("1hour and 60min answers differ in ch but share an ETag")
	}
}

func TestAnswersAreCompressedWhenTheBrowserTakesIt(t *testing.T) {
	s := newStack(t, options{clock: newClock(30)})
	big := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=300"
	plain := s.get(t, big).body
	for _, tc := range []struct {
		name, path, acceptEncoding string
		gzipped                    bool
	}{
		{"gzip", big, "gzip", true},
		{"a browser's list", big, "gzip, deflate, br, zstd", true},
		{"nothing accepted", big, "", false},
		{"gzip refused", big, "gzip;q=0, br", false},
		{"only br", big, "br", false},
		// "*" stands for every coding the list does not name (RFC 9110, 12.5.3).
		{"any coding", big, "*", true},
		{"any coding but gzip", big, "*, gzip;q=0", false},
		{"any coding but none", big, "br, *;q=0", false},
		{"gzip's old name", big, "x-gzip", true},
		{"an answer too small to gain", venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=1", "gzip", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, tc.path, "Accept-Encoding", tc.acceptEncoding)
			if got := a.header.Get("Content-Encoding") == "gzip"; got != tc.gzipped || a.header.Get("Vary") != "Accept-Encoding" {
				t.Fatalf("Content-Encoding %q Vary %q, want gzip %v", a.header.Get("Content-Encoding"), a.header.Get("Vary"), tc.gzipped)
			}
			if !tc.gzipped {
				return
			}
			zr, err := gzip.NewReader(bytes.NewReader(a.body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("decompressed answer differs from the plain one (%v)", err)
			}
		})
	}
}

// TestEveryFieldLineOfIfNoneMatchAndAcceptEncodingCounts: a client or a
// proxy may send a list field's items on several field lines (RFC 9110,
// 5.3), and each line counts as if the lines were one, comma-separated.
func TestEveryFieldLineOfIfNoneMatchAndAcceptEncodingCounts(t *testing.T) {
	s := newStack(t, options{clock: newClock(30)})
	big := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=300"
	etag := s.get(t, big).header.Get("ETag")
	gzEtag := s.get(t, big, "Accept-Encoding", "gzip").header.Get("ETag") // each encoding its own tag
	for _, tc := range []struct {
		name    string
		header  []string // name, value pairs; a name given twice is sent as two lines
		status  int
		gzipped bool
	}{
		{"its tag on the second If-None-Match line", []string{"If-None-Match", `"other"`, "If-None-Match", etag}, http.StatusNotModified, false},
		{"its tag weakly, in a list on the second line", []string{"If-None-Match", `"a", "b"`, "If-None-Match", `"c", W/` + etag}, http.StatusNotModified, false},
		{"* on the second line", []string{"If-None-Match", `"other"`, "If-None-Match", "*"}, http.StatusNotModified, false},
		{"its tag on neither line", []string{"If-None-Match", `"a"`, "If-None-Match", `"b"`}, http.StatusOK, false},
		{"gzip on the second Accept-Encoding line", []string{"Accept-Encoding", "identity", "Accept-Encoding", "gzip"}, http.StatusOK, true},
		{"gzip on the second line of a browser's list", []string{"Accept-Encoding", "deflate, br", "Accept-Encoding", "zstd, gzip;q=0.5"}, http.StatusOK, true},
		{"gzip refused on the second line", []string{"Accept-Encoding", "br", "Accept-Encoding", "gzip;q=0"}, http.StatusOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, big, tc.header...)
			want := etag
			if tc.gzipped {
				want = gzEtag
			}
			if a.status != tc.status || a.header.Get("ETag") != want {
				t.Fatalf("HTTP %d, ETag %s; want %d, %s", a.status, a.header.Get("ETag"), tc.status, want)
			}
			if tc.status == http.StatusNotModified && len(a.body) != 0 {
				t.Fatalf("a 304 with %d bytes of body", len(a.body))
			}
			if got := a.header.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip %v", a.header.Get("Content-Encoding"), tc.gzipped)
			}
		})
	}
}

// cacheBytes reads the candle cache's size from the metrics.
func (s *stack) cacheBytes(t testing.TB) int64 {
	t.Helper()
	for _, line := range strings.Split(string(s.get(t, "/metrics").body), "\n") {
		if v, ok := strings.CutPrefix(line, "riskchart_cache_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int64(f)
		}
	}
	t.Fatal("no riskchart_cache_bytes in the metrics")
	return 0
}

func TestTheLeastRecentlyUsedSeriesGoFirstWhenTheCacheIsFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const bound = 600 << 10
		s := newStack(t, options{clock: newClock(30), gateway: func(c *gateway.Config) { c.CacheBytes = bound }})
		codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"}
		ask := func(code string) { s.get(t, venueapi.PathKLine+"?contract_code="+code+"&period=1min&size=300") }
		ask(codes[0])
		if one := s.cacheBytes(t); one*int64(len(codes)) <= bound {
			t.Fatalf("precondition: %d series of %d bytes should not fit in %d", len(codes), one, bound)
		}
		for _, c := range codes[1:] {
			ask(c)
			if n := s.cacheBytes(t); n > bound {
				t.Fatalf("the cache holds %d bytes, bound %d", n, bound)
			}
		}
		calls := s.klineCalls()
		ask(codes[len(codes)-1])
		if s.klineCalls() != calls {
			t.Fatal("the most recently used series was evicted")
		}
		ask(codes[0])
		if s.klineCalls() != calls+1 {
			t.Fatal("the least recently used series was still held past the bound")
		}
		m := string(s.get(t, "/metrics").body)
		for _, want := range []string{`riskchart_cache_total{cache="candles",result="hit"} 1`, `riskchart_cache_total{cache="candles",result="miss"} 7`} {
			if !strings.Contains(m, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}

func TestALongBackScrollStaysWithinTheBoundAndAnswersRightly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const bound = 2 << 20
		clk := newClock(30)
		s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.CacheBytes = bound }})
		latest := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=300")
		to := venueapi.Period1Min.Start(clk.Now().Unix()) - 300*60
		for i := range 12 { // 24000 candles: about 5 MB held, were nothing dropped
			query := fmt.Sprintf("contract_code=BTC-USDT&period=1min&from=%d&to=%d", to-1999*60, to)
			a := s.get(t, venueapi.PathKLine+"?"+query)
			if want := dataOf(t, mustJSON(t, s.direct(t, query))); a.status != 200 || !bytes.Equal(dataOf(t, a.body), want) {
				t.Fatalf("chunk %d: HTTP %d, candles differ from the venue's", i, a.status)
			}
			if n := s.cacheBytes(t); n > bound {
				t.Fatalf("chunk %d: the cache holds %d bytes, bound %d", i, n, bound)
			}
			to -= 2000 * 60
		}
		calls := s.klineCalls()
		if again := s.get(t, venueapi.PathKLine+"?contract_code=BTC-USDT&period=1min&size=300"); !bytes.Equal(again.body, latest.body) || s.klineCalls() != calls {
			t.Fatal("the newest candles were not kept while the oldest went")
		}
	})
}

func TestUnknownContractsStillReachTheVenueOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(10)
		s := newStack(t, options{clock: clk, gateway: func(c *gateway.Config) { c.RefreshInterval, c.TierTTL = time.Second, time.Minute }})
		now := clk.Now().Unix()
		calls := func() int64 { return s.klineCalls() + s.sb.Received(venueapi.PathTiers) }
		for _, tc := range []struct {
			name, path string
			advance    time.Duration
			wantCalls  int64 // in all
		}{
			{"the latest candles", venueapi.PathKLine + "?contract_code=ZZZ-USDT&period=1min&size=10", 0, 1},
			{"the same at once", venueapi.PathKLine + "?contract_code=ZZZ-USDT&period=1min&size=10", 0, 1},
			{"a range of the series", venueapi.PathKLine + fmt.Sprintf("?contract_code=ZZZ-USDT&period=1min&from=%d&to=%d", now-7200, now-3600), 0, 1},
			{"another period: another series", venueapi.PathKLine + "?contract_code=ZZZ-USDT&period=5min&size=10", 0, 2},
			{"a refresh interval later", venueapi.PathKLine + "?contract_code=ZZZ-USDT&period=1min&size=10", time.Second, 3},
			{"tiers", venueapi.PathTiers + "?contract_code=ZZZ-USDT", 0, 4},
			{"tiers again", venueapi.PathTiers + "?contract_code=ZZZ-USDT", 0, 4},
		} {
			clk.Advance(tc.advance)
			a := s.get(t, tc.path)
			code, msg := a.errCode(t)
			if a.status != http.StatusOK || code != venueapi.CodeNoSuchContract || msg != "unknown contract_code: the venue does not list ZZZ-USDT" {
				t.Fatalf("%s: HTTP %d code %d %q, want HTTP 200, 1013 naming contract_code ZZZ-USDT", tc.name, a.status, code, msg)
			}
			if n := calls(); n != tc.wantCalls {
				t.Fatalf("%s: %d venue calls in all, want %d", tc.name, n, tc.wantCalls)
			}
		}
	})
}

func TestRangesBeforeTheVenuesHistoryAreEmptyAndRemembered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock(30)
		s := newStack(t, options{clock: clk})
		from := venueapi.Period1Day.Start(clk.Now().AddDate(-3, 0, 0).Unix())
		path := fmt.Sprintf("%s?contract_code=BTC-USDT&period=1day&from=%d&to=%d", venueapi.PathKLine, from, from+99*86400)
		// Wholly before the two-year horizon: empty without a venue call
		// (docs/decisions.md#history-depth).
		for i, wantCalls := range []int64{0, 0} {
			a := s.get(t, path)
			if env := a.kline(t); a.status != 200 || env.Status != "ok" || len(env.Data) != 0 || s.klineCalls() != wantCalls {
				t.Fatalf("request %d: HTTP %d, %d candles, %d venue calls; want an empty answer, %d calls", i+1, a.status, len(env.Data), s.klineCalls(), wantCalls)
			}
		}
	})
}

func TestTheVenueNeverReceivesMoreThanItsKLineLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limit := 20
		s := newStack(t, options{
			clock:   newClock(30),
			sandbox: func(c *sandbox.Config) { c.PublicLimit = venueapi.Limit{Requests: limit, Per: time.Second} },
			venue:   func(c *venue.Config) { c.PublicQuota = venueapi.Limit{Requests: limit, Per: time.Second} },
			gateway: func(c *gateway.Config) { c.UpstreamTimeout = 300 * time.Millisecond },
		})
		statuses := make([]int, 100)
		concurrently(len(statuses), func(i int) {
			// Distinct series defeat the cache: each is a venue call.
			a := s.get(t, fmt.Sprintf("%s?contract_code=X%d-USDT&period=1min&size=10", venueapi.PathKLine, i))
			statuses[i] = a.status
			if a.status == http.StatusTooManyRequests {
				if code, _ := a.errCode(t); code != venueapi.CodeRateLimited || a.header.Get("Retry-After") == "" {
					t.Errorf("429 with code %d, Retry-After %q", code, a.header.Get("Retry-After"))
				}
			}
		})
		refused := 0
		for _, st := range statuses {
			if st == http.StatusTooManyRequests {
				refused++
			}
		}
		if n := s.klineCalls(); n > int64(limit) || refused < len(statuses)-limit {
			t.Fatalf("the venue received %d requests (limit %d); %d browsers were told to retry", n, limit, refused)
		}
		if m := string(s.get(t, "/metrics").body); strings.Contains(m, `outcome="venue_rate_limited"`) || !strings.Contains(m, `outcome="budget_spent"`) {
			t.Fatalf("want budget_spent and never venue_rate_limited:\n%s", m)
		}
	})
}

// TestAContractTypeCodesCandlesAreTheVenuesAfterItRollsOver: BTC-USDT-CW
// names this week's future, another one after each Friday's delivery
// (docs/decisions.md#contract-type-codes). Its closed candles are the new
// future's once it rolls over, so an answer held under the code must not be
// served for it then, nor be kept by browsers for a year.
func TestAContractTypeCodesCandlesAreTheVenuesAfterItRollsOver(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 27, 7, 50, 30, 0, time.UTC)} // a Friday, ten minutes before delivery
	s := newStack(t, options{clock: clk})
	from := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2026, 11, 27, 7, 40, 0, 0, time.UTC).Unix()
	for _, query := range []string{
		fmt.Sprintf("contract_code=BTC-USDT-CW&period=1min&from=%d&to=%d", from, to),
		"contract_code=BTC-USDT-CW&period=1min&size=300",
	} {
		t.Run(query, func(t *testing.T) {
			*clk = clock{t: time.Date(2026, 11, 27, 7, 50, 30, 0, time.UTC)}
			before := s.get(t, venueapi.PathKLine+"?"+query)
			if before.status != 200 {
				t.Fatalf("before delivery: HTTP %d %s", before.status, before.body)
			}
			if cc := before.header.Get("Cache-Control"); cc == "public, max-age=31536000, immutable" {
				t.Errorf("before delivery: Cache-Control %q for a code that names another future within minutes", cc)
			}
			clk.Advance(20 * time.Minute) // delivered: CW is next Friday's future now
			got := s.get(t, venueapi.PathKLine+"?"+query).kline(t)
			want := s.direct(t, query)
			g, _ := json.Marshal(got.Data)
			w, _ := json.Marshal(want.Data)
			if len(got.Data) == 0 || string(g) != string(w) {
				t.Errorf("after delivery the gateway answers\n%.300s\nthe venue\n%.300s", g, w)
			}
		})
	}
}

// TestAKLineAnswerOfATypeCodeNamesTheDeliveryOfItsFuture: which future a
// contract-type code names is the server's word, by its own clock
// (docs/decisions.md#contract-type-codes), and a browser's clock may be
// minutes off it. So an answer of a type code says which future its candles
// are: the delivery since which the code names it, the series' own, on
// either side of a delivery; an answer of a code that names one contract for
// good says nothing of the kind.
func TestAKLineAnswerOfATypeCodeNamesTheDeliveryOfItsFuture(t *testing.T) {
	friday := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	clk := &clock{}
	s := newStack(t, options{clock: clk})
	from, to := friday.Add(-time.Hour).Unix(), friday.Add(-50*time.Minute).Unix()
	before, after := friday.AddDate(0, 0, -7).Unix(), friday.Unix()
	for _, tc := range []struct {
		query         string
		before, after int64 // the delivery named a minute before Friday's and a minute after; 0: none
	}{
		{"contract_code=BTC-USDT-CW&period=1day&size=10", before, after},
		{"contract_code=ETH-USDT-NQ&period=1min&size=2", before, after},
		{fmt.Sprintf("contract_code=BTC-USDT-CQ&period=1min&from=%d&to=%d", from, to), before, after},
		{"contract_code=BTC-USDT&period=1day&size=10", 0, 0},
		{"contract_code=BTC-USDT-261225&period=1day&size=10", 0, 0},
	} {
		t.Run(tc.query, func(t *testing.T) {
			for _, at := range []struct {
				t    time.Time
				want int64
			}{{friday.Add(-time.Minute), tc.before}, {friday.Add(time.Minute), tc.after}} {
				*clk = clock{t: at.t}
				got := s.get(t, venueapi.PathKLine+"?"+tc.query)
				var env struct {
					Data     []json.RawMessage `json:"data"`
					Delivery *int64            `json:"delivery"`
				}
				if err := json.Unmarshal(got.body, &env); err != nil || got.status != 200 || len(env.Data) == 0 {
					t.Fatalf("at %s: HTTP %d %.300s (%v)", at.t.Format(time.DateTime), got.status, got.body, err)
				}
				switch {
				case at.want == 0 && env.Delivery != nil:
					t.Errorf("at %s: the answer names the delivery %d, of a code that names one contract for good", at.t.Format(time.DateTime), *env.Delivery)
				case at.want != 0 && (env.Delivery == nil || *env.Delivery != at.want):
					t.Errorf("at %s: the answer names the delivery %v, want %d (%s): %.200s", at.t.Format(time.DateTime), env.Delivery, at.want, time.Unix(at.want, 0).UTC().Format(time.DateTime), got.body)
				}
			}
		})
	}
}

// TestEachEncodingOfAnAnswerHasItsOwnETag: the plain and the gzipped
// answer are two representations, each with an ETag of its own
// (docs/deploy.md#behind-a-reverse-proxy, "Compression"), so that a cache
// holding both never answers one client's revalidation with the other's
// bytes, and a 304 is given only for the representation that would be sent.
func TestEachEncodingOfAnAnswerHasItsOwnETag(t *testing.T) {
	s := newStack(t, options{clock: newClock(30)})
	big := venueapi.PathKLine + "?contract_code=BTC-USDT&period=1day&size=300"
	plain := s.get(t, big)
	gzipped := s.get(t, big, "Accept-Encoding", "gzip")
	if gzipped.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("Content-Encoding %q and %q, want gzip and none", gzipped.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
	}
	plainTag, gzipTag := plain.header.Get("ETag"), gzipped.header.Get("ETag")
	if plainTag == "" || plainTag == gzipTag {
		t.Fatalf("the plain answer's ETag %s, the gzipped one's %s: want two tags", plainTag, gzipTag)
	}
	for _, tc := range []struct {
		name, acceptEncoding, inm string
		status                    int
		etag                      string
	}{
		{"plain, its own tag", "", plainTag, http.StatusNotModified, plainTag},
		{"gzip, its own tag", "gzip", gzipTag, http.StatusNotModified, gzipTag},
		{"gzip, its own tag weakly", "gzip", "W/" + gzipTag, http.StatusNotModified, gzipTag},
		{"gzip, the plain answer's tag", "gzip", plainTag, http.StatusOK, gzipTag},
		{"plain, the gzipped answer's tag", "", gzipTag, http.StatusOK, plainTag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.get(t, big, "Accept-Encoding", tc.acceptEncoding, "If-None-Match", tc.inm)
			if a.status != tc.status || a.header.Get("ETag") != tc.etag {
				t.Fatalf("HTTP %d ETag %s, want %d %s", a.status, a.header.Get("ETag"), tc.status, tc.etag)
			}
		})
	}
}

package gateway

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

const m = 60 // one 1min candle

func TestSpansRecordWhatIsHeldAndFindTheGaps(t *testing.T) {
	p := venueapi.Period1Min
	for _, tc := range []struct {
		name      string
		add       []span
		drop      []int64
		wantSpans []span
		ask       span
		wantGaps  []span
	}{
		{"nothing held: the whole range", nil, nil, nil, span{0, 10 * m}, []span{{0, 10 * m}}},
		{"all held", []span{{0, 10 * m}}, nil, []span{{0, 10 * m}}, span{2 * m, 8 * m}, nil},
		{"touching spans join", []span{{0, 4 * m}, {5 * m, 9 * m}}, nil, []span{{0, 9 * m}}, span{0, 9 * m}, nil},
		{"overlapping spans join", []span{{3 * m, 8 * m}, {0, 4 * m}}, nil, []span{{0, 8 * m}}, span{0, 8 * m}, nil},
		{"a span joining two", []span{{0, 2 * m}, {6 * m, 9 * m}, {3 * m, 5 * m}}, nil, []span{{0, 9 * m}}, span{0, 9 * m}, nil},
		{"a gap between spans", []span{{0, 2 * m}, {6 * m, 9 * m}}, nil, []span{{0, 2 * m}, {6 * m, 9 * m}}, span{0, 9 * m}, []span{{3 * m, 5 * m}}},
		{"gaps on both sides", []span{{3 * m, 5 * m}}, nil, []span{{3 * m, 5 * m}}, span{0, 9 * m}, []span{{0, 2 * m}, {6 * m, 9 * m}}},
		{"a dropped candle in the middle splits", []span{{0, 9 * m}}, []int64{4 * m}, []span{{0, 3 * m}, {5 * m, 9 * m}}, span{0, 9 * m}, []span{{4 * m, 4 * m}}},
		{"a dropped last candle", []span{{0, 9 * m}}, []int64{9 * m}, []span{{0, 8 * m}}, span{0, 9 * m}, []span{{9 * m, 9 * m}}},
		{"a dropped single-candle span", []span{{4 * m, 4 * m}}, []int64{4 * m}, []span{}, span{4 * m, 4 * m}, []span{{4 * m, 4 * m}}},
		{"dropping what is not held", []span{{0, 3 * m}}, []int64{7 * m}, []span{{0, 3 * m}}, span{0, 3 * m}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &series{key: seriesKey{"BTC-USDT", p}}
			for _, sp := range tc.add {
				s.addSpan(p, sp)
			}
			for _, id := range tc.drop {
				s.dropSpan(p, id)
			}
			if len(s.spans) != len(tc.wantSpans) || (len(s.spans) > 0 && !slices.Equal(s.spans, tc.wantSpans)) {
				t.Fatalf("spans %v, want %v", s.spans, tc.wantSpans)
			}
			if got := s.gaps(p, tc.ask.lo, tc.ask.hi); !slices.Equal(got, tc.wantGaps) {
				t.Fatalf("gaps of %v: %v, want %v", tc.ask, got, tc.wantGaps)
			}
			if got := s.covered(tc.ask.lo, tc.ask.hi); got != (len(tc.wantGaps) == 0) {
				t.Fatalf("covered %v = %v, want %v", tc.ask, got, len(tc.wantGaps) == 0)
			}
		})
	}
}

func TestBackCountsCandlesOfEveryPeriod(t *testing.T) {
	jan := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, tc := range []struct {
		p    venueapi.Period
		from int64
		k    int
		want int64
	}{
		{venueapi.Period1Min, 600, 3, 420},
		{venueapi.Period4Hour, 4 * 3600 * 10, 10, 0},
		{venueapi.Period1Mon, jan, 13, time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC).Unix()},
		{venueapi.Period1Day, jan, 0, jan},
	} {
		if got := back(tc.p, tc.from, tc.k); got != tc.want {
			t.Errorf("back(%s, %d, %d) = %d, want %d", tc.p, tc.from, tc.k, got, tc.want)
		}
	}
}

func TestIfNoneMatchAndAcceptEncodingAreReadAsHTTPSays(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {`*`, true},
		{``, false}, {`"abcd"`, false}, {`abc`, false}, {`"x","y"`, false},
	} {
		if got := etagMatch(tc.header, `"abc"`); got != tc.want {
			t.Errorf("If-None-Match %q: %v, want %v", tc.header, got, tc.want)
		}
	}
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"gzip", true}, {"GZIP", true}, {"br, gzip;q=0.5", true}, {"gzip ; q=1", true},
		{"", false}, {"br", false}, {"gzip;q=0", false}, {"gzip; q=0.000", false}, {"x-gzip-not", false},
	} {
		if got := acceptsGzip(tc.header); got != tc.want {
			t.Errorf("Accept-Encoding %q: %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestTheClientLimiterRemembersABoundedNumberOfClients(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newIPLimiter(1, 2, func() time.Time { return now })
	l.max = 100
	for i := range 1000 {
		if ok, _ := l.allow(fmt.Sprintf("10.0.%d.%d", i/256, i%256)); !ok {
			t.Fatalf("a new client %d was refused", i)
		}
		if len(l.m) > l.max {
			t.Fatalf("%d clients remembered, bound %d", len(l.m), l.max)
		}
	}
	l.allow("192.0.2.1")
	l.allow("192.0.2.1")
	if ok, retry := l.allow("192.0.2.1"); ok || retry != time.Second {
		t.Fatalf("past the burst: allowed %v, retry %s; want refused, retry in 1s", ok, retry)
	}
}

func TestTheCSPAllowsTheAppAndTheConfiguredFramers(t *testing.T) {
	for _, tc := range []struct {
		ancestors []string
		want      string
	}{
		{nil, "frame-ancestors 'self'"},
		{[]string{"https://a.example", "https://b.example"}, "frame-ancestors 'self' https://a.example https://b.example"},
	} {
		csp := contentSecurityPolicy(tc.ancestors)
		if !strings.HasSuffix(csp, tc.want) || !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval';") || strings.Contains(csp, "'unsafe-eval'") {
			t.Errorf("CSP %q, want it to end with %q", csp, tc.want)
		}
	}
}

func FuzzLimitParams(f *testing.F) {
	for _, seed := range []struct{ query, contentType, body string }{
		{"contract_code=BTC-USDT", "", ""},
		{"", "application/json", `{"contract_code":"BTC-USDT","business_type":"all"}`},
		{"", "application/x-www-form-urlencoded", "pair=BTC-USDT&contract_type=quarter"},
		{"pair=%zz", "application/json", `[1,2]`},
		{"", "application/json; charset=utf-8", `{"contract_code":null}`},
	} {
		f.Add(seed.query, seed.contentType, seed.body)
	}
	f.Fuzz(func(t *testing.T, query, contentType, body string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", contentType)
		v, err := limitParams(r)
		if err != nil {
			if !strings.Contains(err.Error(), "body") {
				t.Fatalf("error %q does not name the body", err)
			}
			return
		}
		if _, err := venueapi.ParseLimitQuery(v); err != nil && !bytes.Contains([]byte(err.Error()), []byte("must")) {
			t.Fatalf("error %q does not state a rule", err)
		}
	})
}

func TestTrimDropsTheOldestCandlesButKeepsTheAskedThePinnedAndTheNewest(t *testing.T) {
	p := venueapi.Period1Min
	const rec = 100 + recordOverhead // each record below is 100 bytes of JSON
	build := func(spans ...span) *series {
		s := &series{key: seriesKey{"BTC-USDT", p}, recs: map[int64][]byte{}, answers: map[answerKey]*answer{}}
		for _, sp := range spans {
			for id := sp.lo; id <= sp.hi; id += m {
				s.recs[id] = bytes.Repeat([]byte{'x'}, 100)
				s.bytes += rec
			}
			s.addSpan(p, sp)
		}
		return s
	}
	newest := span{10_000 * m, 12_500 * m} // 2501 candles: the newest 2000 stay
	for _, tc := range []struct {
		name      string
		held      []span
		pins      [][2]int64
		over      int64
		keep      int64
		protect   span
		wantSpans []span
	}{
		{"under the limit: nothing goes", []span{{0, 99 * m}, newest}, nil, 3000 * rec, 0, none(), []span{{0, 99 * m}, newest}},
		{"the oldest go first, down to keep", []span{{0, 99 * m}, newest}, nil, 0, (2501 + 40) * rec, none(), []span{{60 * m, 99 * m}, newest}},
		{"the asked span stays though oldest", []span{{0, 99 * m}, {200 * m, 299 * m}, newest}, nil, 0, 0, span{0, 99 * m}, []span{{0, 99 * m}, {10_501 * m, 12_500 * m}}},
		{"the newest 2000 stay", []span{{0, 99 * m}, newest}, nil, 0, 0, none(), []span{{10_501 * m, 12_500 * m}}},
		{"both stay, the rest goes", []span{{0, 99 * m}, {200 * m, 299 * m}, newest}, nil, 0, 0, span{200 * m, 299 * m}, []span{{200 * m, 299 * m}, {10_501 * m, 12_500 * m}}},
		{"ranges requests are reading stay, pinned unaligned", []span{{0, 99 * m}, {200 * m, 299 * m}, newest}, [][2]int64{{10*m + 1, 20*m - 1}, {250 * m, 400 * m}}, 0, 0, none(),
			[]span{{11 * m, 19 * m}, {250 * m, 299 * m}, {10_501 * m, 12_500 * m}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := build(tc.held...)
			for _, pin := range tc.pins {
				s.pin(pin[0], pin[1])
			}
			before := s.bytes
			freed := s.trim(tc.over, tc.keep, tc.protect)
			if !slices.Equal(s.spans, tc.wantSpans) {
				t.Fatalf("spans %v, want %v", s.spans, tc.wantSpans)
			}
			held := int64(0)
			for id := range s.recs {
				if !s.covered(id, id) {
					t.Fatalf("candle %d is held outside the spans", id)
				}
				held += rec
			}
			for _, sp := range s.spans {
				for id := sp.lo; id <= sp.hi; id += m {
					if _, ok := s.recs[id]; !ok {
						t.Fatalf("the spans vouch for candle %d, which is gone", id)
					}
				}
			}
			if s.bytes != held || before-freed != s.bytes {
				t.Fatalf("bytes %d, held %d, freed %d of %d", s.bytes, held, freed, before)
			}
		})
	}
}

package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// mapStorage is browser storage in memory, with an optional quota in
// stored values, as the browser's localStorage behaves.
type mapStorage struct {
	m     map[string]string
	quota int // values held at most; 0: no limit
	throw bool
}

func (s *mapStorage) GetItem(k string) (string, bool) {
	if s.throw {
		panic(errors.New("SecurityError: storage is blocked"))
	}
	v, ok := s.m[k]
	return v, ok
}

func (s *mapStorage) SetItem(k, v string) {
	if s.throw {
		panic(errors.New("SecurityError: storage is blocked"))
	}
	if _, ok := s.m[k]; !ok && s.quota > 0 && len(s.m) >= s.quota {
		panic(errors.New("QuotaExceededError"))
	}
	s.m[k] = v
}

func (s *mapStorage) RemoveItem(k string) { delete(s.m, k) }

func (s *mapStorage) Keys() []string {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	return keys
}

func TestLastSeenDataComesBackExactlyWithItsTime(t *testing.T) {
	s := &mapStorage{m: map[string]string{}}
	at := time.Date(2026, 11, 22, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	var candles []venueapi.Candle
	if err := json.Unmarshal([]byte(`[{"id":1700000000,"open":48725.60,"close":0.000000012345678901,"low":1,"high":2,"vol":3,"count":4,"amount":5,"trade_turnover":6}]`), &candles); err != nil {
		t.Fatal(err)
	}
	if err := KeepLastSeen(s, "riskchart/chart/BTC-USDT/1min", candles, at); err != nil {
		t.Fatal(err)
	}
	got, gotAt, ok := ReadLastSeen[[]venueapi.Candle](s, "riskchart/chart/BTC-USDT/1min")
	if !ok || !gotAt.Equal(at) || len(got) != 1 || !got[0].Close.Equal(candles[0].Close) || got[0].Open.String() != "48725.6" {
		t.Fatalf("got %+v at %s (%v)", got, gotAt, ok)
	}
	if _, _, ok := ReadLastSeen[[]venueapi.Candle](s, "riskchart/chart/ETH-USDT/1min"); ok {
		t.Fatal("a view never kept came back")
	}
}

func TestLastSeenKeepsTheMostRecentViewsWithinItsBoundAndTheQuota(t *testing.T) {
	tests := []struct {
		name  string
		quota int
		views int
		kept  int // the newest views still readable
	}{
		{"within the bound", 0, 5, 5},
		{"past the bound, the oldest go", 0, lastSeenMax + 7, lastSeenMax},
		{"a quota tighter than the bound", 6, 20, 5}, // the index takes one slot
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &mapStorage{m: map[string]string{}, quota: tt.quota}
			key := func(i int) string { return fmt.Sprintf("riskchart/chart/C%d-USDT/1min", i) }
			for i := range tt.views {
				if err := KeepLastSeen(s, key(i), i, time.Unix(int64(i)+1, 0)); err != nil {
					t.Fatalf("view %d: %v", i, err)
				}
			}
			var readable []int
			for i := range tt.views {
				if v, _, ok := ReadLastSeen[int](s, key(i)); ok {
					readable = append(readable, v)
				}
			}
			want := make([]int, 0, tt.kept)
			for i := tt.views - tt.kept; i < tt.views; i++ {
				want = append(want, i)
			}
			if !slices.Equal(readable, want) {
				t.Fatalf("readable %v, want %v", readable, want)
			}
		})
	}
}

func TestLastSeenSurvivesStorageTheBrowserBlocks(t *testing.T) {
	s := &mapStorage{m: map[string]string{}, throw: true}
	if err := KeepLastSeen(s, "k", 1, time.Now()); err == nil {
		t.Fatal("keeping into blocked storage reported no error")
	}
	if _, _, ok := ReadLastSeen[int](s, "k"); ok {
		t.Fatal("blocked storage returned data")
	}
}

// go-app's start decodes every localStorage value as JSON, looking for its
// own expired states: what is kept here must stop that decoder at its first
// byte, however large.
func TestKeptValuesAreNotJSONFromTheirFirstByte(t *testing.T) {
	s := &mapStorage{m: map[string]string{}}
	candles := make([]venueapi.Candle, 300)
	if err := KeepLastSeen(s, "riskchart/chart/BTC-USDT/1min", candles, time.Now()); err != nil {
		t.Fatal(err)
	}
	if len(s.m) != 2 {
		t.Fatalf("kept %d values, want the view and the index", len(s.m))
	}
	for k, v := range s.m {
		var state struct {
			Value     json.RawMessage
			ExpiresAt time.Time
		}
		err := json.Unmarshal([]byte(v), &state)
		if se := (*json.SyntaxError)(nil); !errors.As(err, &se) || se.Offset != 1 {
			t.Errorf("%s (%d bytes): decoding it as JSON gave %v, want a syntax error at its first byte", k, len(v), err)
		}
	}
}

// Views kept as plain JSON by an earlier version are read, and evicted in
// their turn: none is left behind for every start to decode.
func TestViewsKeptAsPlainJSONAreReadAndEvictedInTurn(t *testing.T) {
	s := &mapStorage{m: map[string]string{}}
	key := func(i int) string { return fmt.Sprintf("riskchart/chart/C%d-USDT/1min", i) }
	var index []string
	for i := range lastSeenMax {
		s.m[key(i)] = fmt.Sprintf(`{"at":"2026-11-01T00:00:%02dZ","data":%d}`, i, i)
		index = append(index, key(i))
	}
	b, _ := json.Marshal(index)
	s.m[lastSeenIndex] = string(b)
	if v, at, ok := ReadLastSeen[int](s, key(3)); !ok || v != 3 || at.Second() != 3 {
		t.Fatalf("a plain JSON view read as %v at %s (%v)", v, at, ok)
	}
	for i := range lastSeenMax {
		if err := KeepLastSeen(s, key(100+i), i, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.m) != lastSeenMax+1 {
		t.Errorf("%d values kept, want %d views and the index", len(s.m), lastSeenMax)
	}
	for k, v := range s.m {
		if !strings.HasPrefix(v, keptPrefix) {
			t.Errorf("%s is still kept as plain JSON", k)
		}
	}
}

// someCandles are n records with the digits a venue writes.
func someCandles(n int) []venueapi.Candle {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"vol":%d,"count":%d,"open":98%03d.%d,"close":"98%03d.%d0","low":97%03d.%d,"high":99%03d,"amount":%d.%03d,"trade_turnover":409574.%04d}`,
			1700000000+60*i, 4000+i, 600+i%97, i%1000, i%10, (i*7)%1000, i%9, i%1000, i%5, i%1000, i, i%1000, i)
	}
	b.WriteByte(']')
	cs, err := venueapi.DecodeCandles([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return cs
}

// A chart's candles (venueapi.Candles) are kept without encoding/json, in
// the very bytes encoding/json kept them in: what an earlier version kept is
// read, and what this one keeps an earlier version reads.
func TestCandlesAreKeptInTheBytesEncodingJSONWrites(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 30, 0, 123456789, time.FixedZone("CET", 3600))
	for _, n := range []int{0, 1, 300} {
		cs := someCandles(n)
		byJSON, self := &mapStorage{m: map[string]string{}}, &mapStorage{m: map[string]string{}}
		if err := KeepLastSeen(byJSON, "k", cs, at); err != nil { // a []Candle goes to encoding/json
			t.Fatal(err)
		}
		if err := KeepLastSeen(self, "k", venueapi.Candles(cs), at); err != nil {
			t.Fatal(err)
		}
		if self.m["k"] != byJSON.m["k"] {
			t.Fatalf("%d candles kept as\n%.300s\nencoding/json keeps\n%.300s", n, self.m["k"], byJSON.m["k"])
		}
		if _, _, ok := splitLastSeen(self.m["k"]); !ok {
			t.Fatalf("%d candles: what KeepLastSeen wrote is not read in one pass", n)
		}
		got, gotAt, ok := ReadLastSeen[venueapi.Candles](byJSON, "k")
		if !ok || !gotAt.Equal(at) || string(got.AppendJSON(nil)) != string(venueapi.Candles(cs).AppendJSON(nil)) {
			t.Fatalf("%d candles read back as %d at %s (%v)", n, len(got), gotAt, ok)
		}
	}
}

// ReadLastSeen reads a chart's candles in one pass only where it reads them
// as encoding/json does; anything else goes to encoding/json, and either way
// the answer is encoding/json's.
func TestCandlesAreReadAsEncodingJSONReadsThem(t *testing.T) {
	kept := &mapStorage{m: map[string]string{}}
	if err := KeepLastSeen(kept, "k", venueapi.Candles(someCandles(2)), time.Date(2026, 11, 22, 9, 0, 0, 5, time.UTC)); err != nil {
		t.Fatal(err)
	}
	good := kept.m["k"]
	body := strings.TrimPrefix(good, keptPrefix)
	data := body[strings.Index(body, `"data":`)+len(`"data":`) : len(body)-1]
	for _, tt := range []struct {
		name, raw string
		split     bool // read in one pass
	}{
		{"as kept", good, true},
		{"no candles", keptPrefix + `{"at":"2026-11-22T09:00:00Z","data":[]}`, true},
		{"null candles", keptPrefix + `{"at":"2026-11-22T09:00:00Z","data":null}`, true},
		{"a time in another zone", keptPrefix + `{"at":"2026-11-22T10:00:00+01:00","data":[]}`, true},
		{"the zero time", keptPrefix + `{"at":"0001-01-01T00:00:00Z","data":[]}`, true},
		{"a time that is no time", keptPrefix + `{"at":"yesterday","data":[]}`, false},
		{"an escaped time", keptPrefix + `{"at":"2026-11-22T09:00:00\u005a","data":[]}`, false},
		{"a record without its fields", keptPrefix + `{"at":"2026-11-22T09:00:00Z","data":[{"id":1}]}`, true},
		{"candles that are not JSON", keptPrefix + `{"at":"2026-11-22T09:00:00Z","data":[1,]}`, true},
		{"trailing bytes", good + " ", false},
		{"white space inside", keptPrefix + `{ "at":"2026-11-22T09:00:00Z","data":[]}`, false},
		{"the keys the other way round", keptPrefix + `{"data":` + data + `,"at":"2026-11-22T09:00:00Z"}`, false},
		{"another key", keptPrefix + `{"at":"2026-11-22T09:00:00Z","data":[],"x":1}`, true},
		{"plain JSON, as an earlier version kept it", body, false},
		{"not JSON", keptPrefix + `{"at":`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, split := splitLastSeen(tt.raw); split != tt.split {
				t.Errorf("read in one pass: %t, want %t", split, tt.split)
			}
			s := &mapStorage{m: map[string]string{"k": tt.raw}}
			got, gotAt, gotOK := ReadLastSeen[venueapi.Candles](s, "k")
			want, wantAt, wantOK := ReadLastSeen[[]venueapi.Candle](s, "k") // encoding/json
			if gotOK != wantOK || !gotAt.Equal(wantAt) || (got == nil) != (want == nil) ||
				string(got.AppendJSON(nil)) != string(venueapi.Candles(want).AppendJSON(nil)) {
				t.Fatalf("read %d candles at %s (%v), encoding/json %d at %s (%v)", len(got), gotAt, gotOK, len(want), wantAt, wantOK)
			}
		})
	}
}

// riskByJSON is the risk panel's kept records as encoding/json writes them
// (the panel's own type before venueapi.RiskRecords).
type riskByJSON struct {
	Tiers  []venueapi.Tier          `json:"tiers"`
	Limits []venueapi.PositionLimit `json:"limits"`
}

// someRisk is a contract's tiers and limits as the sandbox serves them.
func someRisk(tiers int) venueapi.RiskRecords {
	var b strings.Builder
	b.WriteString(`{"code":200,"data":[`)
	for i := range tiers {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"contract_code":"BTC-USDT","margin_mode":"cross","tier":%d,"max_lever":"%d","maintenance_margin_rate":"0.%04d","max_volume":"%d","min_volume":"%d","volume_unit":"usdt"}`,
			i+1, 125/(i+1), 40*(i+1), 500000*(i+1), 500000*i)
	}
	b.WriteString(`]}`)
	t, err := venueapi.DecodeTiers([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	l, err := venueapi.DecodeLimits([]byte(`{"status":"ok","data":[{"symbol":"BTC","contract_code":"BTC-USDT","margin_mode":"cross","buy_limit":2000,"sell_limit":2000,"contract_type":"swap","pair":"BTC-USDT","business_type":"swap","lever_rate":20,"buy_limit_value":190000.5,"sell_limit_value":190000.5,"mark_price":95000.25,"trade_partition":"USDT"}]}`))
	if err != nil {
		panic(err)
	}
	return venueapi.RiskRecords{Tiers: t.Data, Limits: l.Data}
}

// The risk panel's tiers and limits (venueapi.RiskRecords) and the index of
// kept views are kept without encoding/json, in the bytes encoding/json
// kept them in, and read back as encoding/json reads them.
func TestRiskRecordsAndTheIndexAreKeptInTheBytesEncodingJSONWrites(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 30, 0, 123456789, time.UTC)
	for _, r := range []venueapi.RiskRecords{someRisk(10), someRisk(0), {Tiers: someRisk(2).Tiers}} {
		byJSON, self := &mapStorage{m: map[string]string{}}, &mapStorage{m: map[string]string{}}
		if err := KeepLastSeen(byJSON, "k", riskByJSON(r), at); err != nil {
			t.Fatal(err)
		}
		if err := KeepLastSeen(self, "k", r, at); err != nil {
			t.Fatal(err)
		}
		if self.m["k"] != byJSON.m["k"] {
			t.Fatalf("kept as\n%.300s\nencoding/json keeps\n%.300s", self.m["k"], byJSON.m["k"])
		}
		got, gotAt, ok := ReadLastSeen[venueapi.RiskRecords](byJSON, "k")
		want, _, _ := ReadLastSeen[riskByJSON](byJSON, "k")
		if !ok || !gotAt.Equal(at) || string(got.AppendJSON(nil)) != string(venueapi.RiskRecords(want).AppendJSON(nil)) ||
			(got.Tiers == nil) != (r.Tiers == nil) || (got.Limits == nil) != (r.Limits == nil) {
			t.Fatalf("read back %+v at %s (%v), encoding/json %+v", got, gotAt, ok, want)
		}
	}

	s := &mapStorage{m: map[string]string{}}
	var keys []string
	for _, k := range []string{"riskchart/risk/BTC-USDT", "riskchart/chart/ETH-USDT/1min", `odd "key" <&>`, "riskchart/risk/BTC-USDT"} {
		if err := KeepLastSeen(s, k, 1, at); err != nil {
			t.Fatal(err)
		}
		keys = append(slices.DeleteFunc(keys, func(x string) bool { return x == k }), k)
		want, _ := json.Marshal(keys)
		if s.m[lastSeenIndex] != keptPrefix+string(want) {
			t.Fatalf("index kept as %s, encoding/json writes %s", s.m[lastSeenIndex], want)
		}
	}
	if got := readIndex(s); !slices.Equal(got, keys) {
		t.Fatalf("index read back as %q, want %q", got, keys)
	}
}

// BenchmarkKeepLastSeenRisk keeps a contract's ten tiers and its limits, as
// the risk panel does after each load; encoding/json, the anchor, is how it
// kept them before.
func BenchmarkKeepLastSeenRisk(b *testing.B) {
	r, at := someRisk(10), time.Now()
	benchmarkKeeps(b,
		func(s Storage) error { return KeepLastSeen(s, "k", r, at) },
		func(s Storage) error { return KeepLastSeen(s, "k", riskByJSON(r), at) })
}

// BenchmarkKeepLastSeen300Candles keeps a chart's 300 candles, as the chart
// does after each load; encoding/json, the anchor, is how it kept them
// before.
func BenchmarkKeepLastSeen300Candles(b *testing.B) {
	cs, at := someCandles(300), time.Now()
	benchmarkKeeps(b,
		func(s Storage) error { return KeepLastSeen(s, "k", venueapi.Candles(cs), at) },
		func(s Storage) error { return KeepLastSeen(s, "k", cs, at) })
}

// benchmarkKeeps runs a keep in one pass and its anchor by encoding/json,
// each into storage of its own.
func benchmarkKeeps(b *testing.B, onePass, byJSON func(s Storage) error) {
	for _, bb := range []struct {
		name string
		keep func(s Storage) error
	}{{"one pass", onePass}, {"encoding/json", byJSON}} {
		b.Run(bb.name, func(b *testing.B) {
			s := &mapStorage{m: map[string]string{}}
			b.ReportAllocs()
			for b.Loop() {
				if err := bb.keep(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadLastSeen300Candles reads them back, as the chart does when it
// shows a view it has kept before the network answers.
func BenchmarkReadLastSeen300Candles(b *testing.B) {
	s := &mapStorage{m: map[string]string{}}
	if err := KeepLastSeen(s, "k", venueapi.Candles(someCandles(300)), time.Now()); err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name string
		read func() bool
	}{
		{"one pass", func() bool { _, _, ok := ReadLastSeen[venueapi.Candles](s, "k"); return ok }},
		{"encoding/json", func() bool { _, _, ok := ReadLastSeen[[]venueapi.Candle](s, "k"); return ok }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !bb.read() {
					b.Fatal("nothing read")
				}
			}
		})
	}
}

// TestAViewKeptWithoutItsIndexIsNotLeftBehind: when the quota takes the
// view but refuses the index that lists it, the view is not left in
// storage, where no later keep would ever count it or make room by it.
func TestAViewKeptWithoutItsIndexIsNotLeftBehind(t *testing.T) {
	s := &mapStorage{m: map[string]string{}, quota: 1} // room for the view, none for the index
	if err := KeepLastSeen(s, "riskchart/chart/BTC-USDT/1min", 1, time.Now()); err == nil {
		t.Fatal("kept with no room for the index: want an error")
	}
	if len(s.m) != 0 {
		t.Errorf("storage holds %v: a view no index lists", s.m)
	}
}

package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

func TestEmbedSnippetsCarryTheViewAndOnlyWhatTheRouteTakes(t *testing.T) {
	v := view{Contract: "ETH-USDT", Period: venueapi.Period15Min, UTC: true, Theme: "dark"}
	base := "http://127.0.0.1:8080"
	tests := []struct {
		name  string
		route string
		v     view
		o     snippetOptions
		want  string
	}{
		{"the chart, with its period and zone", "chart", v, snippetOptions{},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=ETH-USDT&amp;period=15min&amp;theme=dark&amp;tz=utc" title="Riskchart chart of ETH-USDT" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
		{"the chart without pickers, automatic theme", "chart", view{Contract: "BTC-USDT-CQ", Period: venueapi.Period1Day, Theme: "auto"}, snippetOptions{noPicker: true},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=BTC-USDT-CQ&amp;controls=0&amp;period=1day" title="Riskchart chart of BTC-USDT-CQ" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
		{"a panel takes no period, zone or link unless given", "tiers", v, snippetOptions{},
			`<iframe src="http://127.0.0.1:8080/embed/tiers?contract_code=ETH-USDT&amp;theme=dark" title="Riskchart tiers of ETH-USDT" style="width:100%;height:420px;border:0" loading="lazy"></iframe>`},
		{"a panel with a signed link, escaped", "limits", v, snippetOptions{link: `ab.c"d<`},
			`<iframe src="http://127.0.0.1:8080/embed/limits?contract_code=ETH-USDT&amp;embed=ab.c%22d%3C&amp;theme=dark" title="Riskchart limits of ETH-USDT" style="width:100%;height:320px;border:0" loading="lazy"></iframe>`},
		{"the chart never carries the link", "chart", v, snippetOptions{link: "tok.en"},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=ETH-USDT&amp;period=15min&amp;theme=dark&amp;tz=utc" title="Riskchart chart of ETH-USDT" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := embedSnippet(base, tt.route, tt.v, tt.o); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidLocaleTakesLanguageTagsOnly(t *testing.T) {
	tests := []struct {
		tag  string
		want bool
	}{
		{"de", true}, {"pt-BR", true}, {"zh-Hant-TW", true}, {"es-419", true}, {"sr-Latn-RS-x1", true},
		{"", false}, {"d", false}, {"deut", false}, {"de-", false}, {"-de", false}, {"de_DE", false},
		{"a1", false}, {"de-B", false}, {"de-abcdefghi", false}, {"en-US-x-y-z", false},
		{`de"><script>`, false}, {"de BR", false},
	}
	for _, tt := range tests {
		if got := validLocale(tt.tag); got != tt.want {
			t.Errorf("validLocale(%q) = %v, want %v", tt.tag, got, tt.want)
		}
	}
}

// mapStorage is browser storage in memory, with an optional quota in
// stored values, as the browser's localStorage behaves.
type mapStorage struct {
	m     map[string][]byte
	quota int // values held at most; 0: no limit
	throw bool
}

func (s *mapStorage) Set(k string, v any) error {
	if s.throw {
		panic(errors.New("SecurityError: storage is blocked"))
	}
	if _, ok := s.m[k]; !ok && s.quota > 0 && len(s.m) >= s.quota {
		return errors.New("QuotaExceededError")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.m[k] = b
	return nil
}

func (s *mapStorage) Get(k string, v any) error {
	if s.throw {
		panic(errors.New("SecurityError: storage is blocked"))
	}
	if b, ok := s.m[k]; ok {
		return json.Unmarshal(b, v)
	}
	return nil
}

func (s *mapStorage) Del(k string)           { delete(s.m, k) }
func (s *mapStorage) Len() int               { return len(s.m) }
func (s *mapStorage) Clear()                 { clear(s.m) }
func (s *mapStorage) Contains(k string) bool { _, ok := s.m[k]; return ok }
func (s *mapStorage) ForEach(f func(string)) {
	for k := range s.m {
		f(k)
	}
}

func TestLastSeenDataComesBackExactlyWithItsTime(t *testing.T) {
	s := &mapStorage{m: map[string][]byte{}}
	at := time.Date(2026, 11, 22, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	var candles []venueapi.Candle
	if err := json.Unmarshal([]byte(`[{"id":1700000000,"open":48725.60,"close":0.000000012345678901,"low":1,"high":2,"vol":3,"count":4,"amount":5,"trade_turnover":6}]`), &candles); err != nil {
		t.Fatal(err)
	}
	if err := keepLastSeen(s, "riskchart/chart/BTC-USDT/1min", candles, at); err != nil {
		t.Fatal(err)
	}
	got, gotAt, ok := readLastSeen[[]venueapi.Candle](s, "riskchart/chart/BTC-USDT/1min")
	if !ok || !gotAt.Equal(at) || len(got) != 1 || !got[0].Close.Equal(candles[0].Close) || got[0].Open.String() != "48725.6" {
		t.Fatalf("got %+v at %s (%v)", got, gotAt, ok)
	}
	if _, _, ok := readLastSeen[[]venueapi.Candle](s, "riskchart/chart/ETH-USDT/1min"); ok {
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
			s := &mapStorage{m: map[string][]byte{}, quota: tt.quota}
			key := func(i int) string { return fmt.Sprintf("riskchart/chart/C%d-USDT/1min", i) }
			for i := range tt.views {
				if err := keepLastSeen(s, key(i), i, time.Unix(int64(i)+1, 0)); err != nil {
					t.Fatalf("view %d: %v", i, err)
				}
			}
			var readable []int
			for i := range tt.views {
				if v, _, ok := readLastSeen[int](s, key(i)); ok {
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
	s := &mapStorage{m: map[string][]byte{}, throw: true}
	if err := keepLastSeen(s, "k", 1, time.Now()); err == nil {
		t.Fatal("keeping into blocked storage reported no error")
	}
	if _, _, ok := readLastSeen[int](s, "k"); ok {
		t.Fatal("blocked storage returned data")
	}
}

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

package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

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
			s := &mapStorage{m: map[string][]byte{}, quota: tt.quota}
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
	s := &mapStorage{m: map[string][]byte{}, throw: true}
	if err := KeepLastSeen(s, "k", 1, time.Now()); err == nil {
		t.Fatal("keeping into blocked storage reported no error")
	}
	if _, _, ok := ReadLastSeen[int](s, "k"); ok {
		t.Fatal("blocked storage returned data")
	}
}

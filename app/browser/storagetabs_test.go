package browser

import (
	"fmt"
	"testing"
	"time"
)

// twoTabs is one origin's localStorage as two tabs see it: the browser
// gives no lock across tabs, so another tab's whole keep may run between
// this tab's read of the index and its write. meanwhile runs once, when
// this tab first reads the index.
type twoTabs struct {
	*mapStorage
	meanwhile func(s Storage)
}

func (s *twoTabs) GetItem(k string) (string, bool) {
	v, ok := s.mapStorage.GetItem(k)
	if k == lastSeenIndex && s.meanwhile != nil {
		f := s.meanwhile
		s.meanwhile = nil
		f(s.mapStorage)
	}
	return v, ok
}

// Two tabs keeping their views at once must not leave a view that no
// index lists: nothing would ever forget it, and every such view is up to
// 60 KB of the origin's quota for good (storage.go: lastSeenMax bounds the
// views kept). However they interleave, once later views have pushed
// both out, storage holds at most lastSeenMax views and the index.
func TestViewsKeptByTwoTabsAtOnceStayWithinTheBound(t *testing.T) {
	key := func(tab string, i int) string { return fmt.Sprintf("riskchart/chart/%s%d-USDT/1min", tab, i) }
	for _, tc := range []struct {
		name  string
		races int // keeps of tab A each raced by one of tab B
	}{
		{"one race", 1},
		{"a race per view", 3 * lastSeenMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &mapStorage{m: map[string]string{}}
			for i := range tc.races {
				s := &twoTabs{mapStorage: m, meanwhile: func(s Storage) {
					if err := KeepLastSeen(s, key("B", i), i, time.Unix(1, 0)); err != nil {
						t.Fatal(err)
					}
				}}
				if err := KeepLastSeen[int](s, key("A", i), i, time.Unix(1, 0)); err != nil {
					t.Fatal(err)
				}
			}
			for i := range lastSeenMax { // later views, in one tab
				if err := KeepLastSeen(Storage(m), key("C", i), i, time.Unix(1, 0)); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(m.m); n > lastSeenMax+1 {
				var left []string
				for k := range m.m {
					if k[len("riskchart/chart/")] != 'C' && k != lastSeenIndex {
						left = append(left, k)
					}
				}
				t.Errorf("storage holds %d values, want at most %d views and the index; left behind, listed by no index: %d, e.g. %v",
					n, lastSeenMax, len(left), left[:min(3, len(left))])
			}
		})
	}
}

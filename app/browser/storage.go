package browser

import (
	"fmt"
	"slices"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The last data a view showed is kept in the browser's storage, so that the
// next visit draws it before the network answers, and a visit without a
// network shows it marked "Offline, as of …" until the server answers again.

// lastSeenMax is how many views' data the browser keeps: the views a person
// goes back to, well under the storage quota (300 candles are about 60 KB;
// localStorage holds about 5 MB per origin).
const lastSeenMax = 16

// lastSeenIndex is the storage key of the kept keys, oldest first.
const lastSeenIndex = "riskchart/last-seen"

// lastSeen is one view's data as kept.
type lastSeen[T any] struct {
	At   time.Time `json:"at"`
	Data T         `json:"data"`
}

// KeepLastSeen stores v, seen at at, under key, forgetting the least recently
// kept views beyond lastSeenMax, and older ones while the quota refuses it.
func KeepLastSeen[T any](s app.BrowserStorage, key string, v T, at time.Time) (err error) {
	defer func() { // storage that the browser blocks throws on access
		if r := recover(); r != nil {
			err = fmt.Errorf("keeping %s in browser storage: %v", key, r)
		}
	}()
	var index []string
	if err := s.Get(lastSeenIndex, &index); err != nil {
		index = nil // unreadable: start again
	}
	index = slices.DeleteFunc(index, func(k string) bool { return k == key })
	for len(index) >= lastSeenMax {
		s.Del(index[0])
		index = index[1:]
	}
	for {
		err = s.Set(key, lastSeen[T]{At: at.UTC(), Data: v})
		if err == nil || len(index) == 0 {
			break
		}
		s.Del(index[0]) // over the quota: make room
		index = index[1:]
	}
	if err != nil {
		s.Del(key)
		return fmt.Errorf("keeping %s in browser storage: %w", key, err)
	}
	return s.Set(lastSeenIndex, append(index, key))
}

// ReadLastSeen returns what KeepLastSeen stored under key and when it was
// seen; ok is false when nothing readable is kept.
func ReadLastSeen[T any](s app.BrowserStorage, key string) (v T, at time.Time, ok bool) {
	defer func() {
		if recover() != nil {
			var zero T
			v, at, ok = zero, time.Time{}, false
		}
	}()
	var kept lastSeen[T]
	if err := s.Get(key, &kept); err != nil || kept.At.IsZero() {
		return v, time.Time{}, false
	}
	return kept.Data, kept.At, true
}

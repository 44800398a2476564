package browser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// keptPrefix begins every value kept here. go-app's start (engine.Start,
// stateManager.CleanupExpiredPersistedStates) reads every localStorage value
// and decodes it as JSON to find its own expired states: with 16 views of
// 60 KB kept as JSON, every start would scan a megabyte inside Go's first
// run, which the app's controls wait for. A value that is not JSON from its
// first byte costs that sweep nothing. Values an earlier version kept as
// plain JSON are still read.
const keptPrefix = "riskchart:1 "

// Storage is browser storage holding text, as the window's localStorage
// does. Its methods panic where the browser throws (storage blocked, quota
// exceeded); the functions here recover.
type Storage interface {
	GetItem(key string) (value string, ok bool)
	SetItem(key, value string)
	RemoveItem(key string)
}

// LocalStorage is the window's localStorage.
func LocalStorage() Storage { return localStorage{} }

type localStorage struct{}

func (localStorage) GetItem(key string) (string, bool) {
	v := app.Window().Get("localStorage").Call("getItem", key)
	if v.IsNull() || v.IsUndefined() {
		return "", false
	}
	return v.String(), true
}

func (localStorage) SetItem(key, value string) {
	app.Window().Get("localStorage").Call("setItem", key, value)
}

func (localStorage) RemoveItem(key string) {
	app.Window().Get("localStorage").Call("removeItem", key)
}

// lastSeen is one view's data as kept.
type lastSeen[T any] struct {
	At   time.Time `json:"at"`
	Data T         `json:"data"`
}

// KeepLastSeen stores v, seen at at, under key, forgetting the least recently
// kept views beyond lastSeenMax, and older ones while the quota refuses it.
func KeepLastSeen[T any](s Storage, key string, v T, at time.Time) (err error) {
	defer func() { // storage that the browser blocks throws on access
		if r := recover(); r != nil {
			err = fmt.Errorf("keeping %s in browser storage: %v", key, r)
		}
	}()
	kept, err := encodeKept(lastSeen[T]{At: at.UTC(), Data: v})
	if err != nil {
		return fmt.Errorf("keeping %s in browser storage: %w", key, err)
	}
	var index []string
	if !readKept(s, lastSeenIndex, &index) {
		index = nil // unreadable: start again
	}
	index = slices.DeleteFunc(index, func(k string) bool { return k == key })
	for len(index) >= lastSeenMax {
		s.RemoveItem(index[0])
		index = index[1:]
	}
	for {
		err = setItem(s, key, kept)
		if err == nil || len(index) == 0 {
			break
		}
		s.RemoveItem(index[0]) // over the quota: make room
		index = index[1:]
	}
	if err != nil {
		s.RemoveItem(key)
		return fmt.Errorf("keeping %s in browser storage: %w", key, err)
	}
	ib, _ := encodeKept(append(index, key)) // strings always encode
	if err := setItem(s, lastSeenIndex, ib); err != nil {
		return fmt.Errorf("keeping the index of kept views: %w", err)
	}
	return nil
}

// encodeKept is v as kept: keptPrefix, then its JSON.
func encodeKept(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return keptPrefix + string(b), nil
}

// setItem is s.SetItem with the browser's refusal (the quota) as an error.
func setItem(s Storage, key, value string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.SetItem(key, value)
	return nil
}

// readKept decodes the value kept under key into v: as encodeKept wrote it,
// or as plain JSON as an earlier version kept it.
func readKept(s Storage, key string, v any) bool {
	raw, ok := s.GetItem(key)
	if !ok {
		return false
	}
	return json.Unmarshal([]byte(strings.TrimPrefix(raw, keptPrefix)), v) == nil
}

// ReadLastSeen returns what KeepLastSeen stored under key and when it was
// seen; ok is false when nothing readable is kept.
func ReadLastSeen[T any](s Storage, key string) (v T, at time.Time, ok bool) {
	defer func() {
		if recover() != nil {
			var zero T
			v, at, ok = zero, time.Time{}, false
		}
	}()
	var kept lastSeen[T]
	if !readKept(s, key, &kept) || kept.At.IsZero() {
		return v, time.Time{}, false
	}
	return kept.Data, kept.At, true
}

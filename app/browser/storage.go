package browser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/riskchart/riskchart/venueapi"
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
// does. Its methods panic where a call throws (quota exceeded); the
// functions here recover. Storage the browser refuses throws as
// window.localStorage is read, which no recover sees (syscall/js lets a
// property read's throw pass through app.wasm): web/app-start.js gives
// such a page a stand-in, which keeps nothing past it.
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

func (localStorage) Keys() []string {
	ls := app.Window().Get("localStorage")
	n := ls.Get("length").Int()
	keys := make([]string, 0, n)
	for i := range n {
		if k := ls.Call("key", i); !k.IsNull() && !k.IsUndefined() {
			keys = append(keys, k.String())
		}
	}
	return keys
}

// keyLister is storage that lists its keys, as localStorage does.
type keyLister interface{ Keys() []string }

// keptKeys begins the key of every view kept here (riskchart/chart/…,
// riskchart/risk/…), and of their index.
const keptKeys = "riskchart/"

// forgetUnlisted removes the views kept here that index does not list,
// except key: another tab's keep that ran between this one's read of the
// index and its write left its view listed by no index, which no later
// keep would count or make room by. Storage that cannot list its keys
// keeps them.
func forgetUnlisted(s Storage, index []string, key string) {
	l, ok := s.(keyLister)
	if !ok {
		return
	}
	for _, k := range l.Keys() {
		if strings.HasPrefix(k, keptKeys) && k != lastSeenIndex && k != key && !slices.Contains(index, k) {
			s.RemoveItem(k)
		}
	}
}

// lastSeen is one view's data as kept. Data holds a T as kept, or a *T to
// read one into (encoding/json decodes into the pointer an interface holds).
type lastSeen struct {
	At   time.Time `json:"at"`
	Data any       `json:"data"`
}

// KeepLastSeen stores v, seen at at, under key, forgetting the least recently
// kept views beyond lastSeenMax, and older ones while the quota refuses it.
func KeepLastSeen[T any](s Storage, key string, v T, at time.Time) error {
	self, _ := any(&v).(selfJSON)
	return keepLastSeen(s, key, v, self, at.UTC())
}

// keepLastSeen is KeepLastSeen of v, or of self when the data writes its own
// JSON: the generic part is only the type's, so that each type kept adds
// little to app.wasm.
func keepLastSeen(s Storage, key string, v any, self selfJSON, at time.Time) (err error) {
	defer func() { // storage that the browser blocks throws on access
		if r := recover(); r != nil {
			err = fmt.Errorf("keeping %s in browser storage: %v", key, r)
		}
	}()
	kept, err := encodeLastSeen(v, self, at)
	if err != nil {
		return fmt.Errorf("keeping %s in browser storage: %w", key, err)
	}
	index := readIndex(s)
	index = slices.DeleteFunc(index, func(k string) bool { return k == key })
	forgetUnlisted(s, index, key)
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
	ib := keptPrefix + string(venueapi.AppendStrings(nil, append(index, key)))
	if err := setItem(s, lastSeenIndex, ib); err != nil {
		s.RemoveItem(key) // no index lists it: nothing would ever make room by it
		return fmt.Errorf("keeping the index of kept views: %w", err)
	}
	return nil
}

// selfJSON is data that writes and reads its own JSON, each exactly as
// encoding/json would (venueapi.Candles: a fuzz target holds its reader to
// encoding/json's, and a test its writer). It is kept and read back
// without encoding/json, whose reflection took 35 ms to write a chart's
// 300 candles in a cold start, in WebAssembly (docs/startup.md, "The
// chart's kept candles").
type selfJSON interface {
	AppendJSON(b []byte) []byte
	UnmarshalJSON(b []byte) error
}

// encodeLastSeen is lastSeen{at, v} as encodeKept writes it; self, when not
// nil, writes the data in place of encoding/json.
func encodeLastSeen(v any, self selfJSON, at time.Time) (string, error) {
	if self == nil {
		return encodeKept(lastSeen{At: at, Data: v})
	}
	t, err := at.MarshalJSON()
	if err != nil {
		return "", err
	}
	b := append([]byte(keptPrefix+`{"at":`), t...)
	b = self.AppendJSON(append(b, `,"data":`...))
	return string(append(b, '}')), nil
}

// splitLastSeen splits a value encodeLastSeen wrote into its time and its
// data's JSON, without reading the data; ok is false for any other shape,
// which encoding/json then reads.
func splitLastSeen(raw string) (at time.Time, data string, ok bool) {
	const head, mid = keptPrefix + `{"at":"`, `","data":`
	rest, found := strings.CutPrefix(raw, head)
	end := strings.IndexAny(rest, `"\`)
	if !found || end < 0 || !strings.HasPrefix(rest[end:], mid) || !strings.HasSuffix(rest, "}") {
		return time.Time{}, "", false
	}
	if at.UnmarshalJSON([]byte(`"`+rest[:end]+`"`)) != nil { // as encoding/json reads it
		return time.Time{}, "", false
	}
	return at, rest[end+len(mid) : len(rest)-1], true
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

// readIndex is the index of kept views, oldest first: as keepLastSeen wrote
// it, or as plain JSON as an earlier version kept it; none when unreadable.
func readIndex(s Storage) []string {
	raw, ok := s.GetItem(lastSeenIndex)
	if !ok {
		return nil
	}
	index, err := venueapi.DecodeStrings([]byte(strings.TrimPrefix(raw, keptPrefix)))
	if err != nil {
		return nil // start again
	}
	return index
}

// decodeKept decodes raw, as encodeKept wrote it or as plain JSON, into v.
func decodeKept(raw string, v any) bool {
	return json.Unmarshal([]byte(strings.TrimPrefix(raw, keptPrefix)), v) == nil
}

// ReadLastSeen returns what KeepLastSeen stored under key and when it was
// seen; ok is false when nothing readable is kept.
func ReadLastSeen[T any](s Storage, key string) (v T, at time.Time, ok bool) {
	if at, ok = readLastSeen(s, key, &v); !ok {
		var zero T
		return zero, time.Time{}, false
	}
	return v, at, true
}

// readLastSeen decodes what is kept under key into into, a *T: by the T
// itself when it reads its own JSON (selfJSON), by encoding/json otherwise.
func readLastSeen(s Storage, key string, into any) (at time.Time, ok bool) {
	defer func() {
		if recover() != nil {
			at, ok = time.Time{}, false
		}
	}()
	raw, ok := s.GetItem(key)
	if !ok {
		return time.Time{}, false
	}
	// Data that reads itself is read in one pass where the value has the
	// shape encodeLastSeen writes and the data reads; anything else (another
	// member after the data, which the split left in it) is encoding/json's.
	if self, isSelf := into.(selfJSON); isSelf {
		if at, data, split := splitLastSeen(raw); split && !at.IsZero() && self.UnmarshalJSON([]byte(data)) == nil {
			return at, true
		}
	}
	kept := lastSeen{Data: into}
	if !decodeKept(raw, &kept) || kept.At.IsZero() {
		return time.Time{}, false
	}
	return kept.At, true
}

package venue_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// chunkVenue answers KLine ranges with every candle in [from, to], read with
// venueapi's own rules (so a chunk of more than 2000 candles is refused), and
// records each range asked for. shape may reorder or pad what it sends.
type chunkVenue struct {
	mu     sync.Mutex
	ranges [][2]int64
}

func (v *chunkVenue) start(t *testing.T, shape func(p venueapi.Period, from, to int64, cs []venueapi.Candle) []venueapi.Candle) *venueStub {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		vals, _ := url.ParseQuery(r.URL.RawQuery)
		q, err := venueapi.ParseKLineQuery(vals)
		if err != nil || !q.Range {
			w.Write(venueapi.ErrorBody(venueapi.PathKLine, venueapi.CodeInvalidInput, "want a valid range: "+errString(err), 1))
			return
		}
		v.mu.Lock()
		v.ranges = append(v.ranges, [2]int64{q.From, q.To})
		v.mu.Unlock()
		var cs []venueapi.Candle
		for id := q.Period.Start(q.From); id <= q.To; id = q.Period.Next(id) {
			if id >= q.From {
				cs = append(cs, candleAt(id))
			}
		}
		if shape != nil {
			cs = shape(q.Period, q.From, q.To, cs)
		}
		env := venueapi.KLineEnvelope{Ch: venueapi.Channel(q.ContractCode, q.Period), Status: venueapi.StatusOK, Ts: 1, Data: cs}
		w.Write(env.AppendJSON(nil))
	})
	return srv
}

func errString(err error) string {
	if err == nil {
		return "no range"
	}
	return err.Error()
}

func candleAt(id int64) venueapi.Candle {
	d := decimal.New(id%1000+1, -1)
	return venueapi.Candle{ID: id, Vol: d, Count: d, Open: d, Close: d, Low: d, High: d, Amount: d, TradeTurnover: d}
}

func TestKLineRangePagesWithoutGapsOrDuplicates(t *testing.T) {
	minute := int64(60)
	jan2026 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	tests := []struct {
		name       string
		p          venueapi.Period
		from, to   int64
		wantFirst  int64
		wantCount  int
		wantChunks int
		shape      func(p venueapi.Period, from, to int64, cs []venueapi.Candle) []venueapi.Candle
	}{
		{name: "5000 minutes in three chunks", p: venueapi.Period1Min, from: jan2026, to: jan2026 + 4999*minute, wantFirst: jan2026, wantCount: 5000, wantChunks: 3},
		{name: "exactly 2000 minutes in one chunk", p: venueapi.Period1Min, from: jan2026, to: jan2026 + 1999*minute, wantFirst: jan2026, wantCount: 2000, wantChunks: 1},
		{name: "2001 minutes in two chunks", p: venueapi.Period1Min, from: jan2026, to: jan2026 + 2000*minute, wantFirst: jan2026, wantCount: 2001, wantChunks: 2},
		{name: "bounds inside candles keep only candles starting in the range", p: venueapi.Period4Hour, from: jan2026 + 1, to: jan2026 + 4*3600*2500 + 7,
			wantFirst: jan2026 + 4*3600, wantCount: 2500, wantChunks: 2},
		{name: "one candle", p: venueapi.Period1Day, from: jan2026, to: jan2026, wantFirst: jan2026, wantCount: 1, wantChunks: 1},
		{name: "a range inside one candle holds none", p: venueapi.Period1Day, from: jan2026 + 1, to: jan2026 + 3600, wantCount: 0, wantChunks: 0},
		{name: "months walk the calendar across chunks", p: venueapi.Period1Mon, from: 0, to: time.Date(2150, 6, 1, 0, 0, 0, 0, time.UTC).Unix(),
			wantFirst: 0, wantCount: 180*12 + 6, wantChunks: 2},
		{name: "a venue answering newest first", p: venueapi.Period1Min, from: jan2026, to: jan2026 + 4999*minute, wantFirst: jan2026, wantCount: 5000, wantChunks: 3,
			shape: func(_ venueapi.Period, _, _ int64, cs []venueapi.Candle) []venueapi.Candle {
				slices.Reverse(cs)
				return cs
			}},
		{name: "a venue padding each chunk with its neighbours and a repeat", p: venueapi.Period1Min, from: jan2026, to: jan2026 + 4999*minute, wantFirst: jan2026, wantCount: 5000, wantChunks: 3,
			shape: func(p venueapi.Period, from, to int64, cs []venueapi.Candle) []venueapi.Candle {
				return append(append([]venueapi.Candle{candleAt(p.Prev(from))}, cs...), cs[len(cs)-1], candleAt(p.Next(to)))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &chunkVenue{}
			c := v.start(t, tt.shape).client(t, nil)
			got, err := c.KLineRange(context.Background(), "BTC-USDT", tt.p, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantCount || len(v.ranges) != tt.wantChunks {
				t.Fatalf("%d candles in %d chunks, want %d in %d", len(got), len(v.ranges), tt.wantCount, tt.wantChunks)
			}
			if len(got) == 0 {
				return
			}
			if got[0].ID != tt.wantFirst || got[len(got)-1].ID > tt.to {
				t.Fatalf("candles %d..%d, want from %d to at most %d", got[0].ID, got[len(got)-1].ID, tt.wantFirst, tt.to)
			}
			for i := 1; i < len(got); i++ {
				if got[i].ID != tt.p.Next(got[i-1].ID) {
					t.Fatalf("candle %d follows %d: a gap or a duplicate", got[i].ID, got[i-1].ID)
				}
			}
			for i := 1; i < len(v.ranges); i++ {
				if v.ranges[i][0] != tt.p.Next(v.ranges[i-1][1]) {
					t.Fatalf("chunk %d starts at %d, not at the candle after the previous chunk's end %d", i+1, v.ranges[i][0], v.ranges[i-1][1])
				}
			}
		})
	}
}

func TestKLineRangeReturnsWhatItHasWhenAChunkFails(t *testing.T) {
	v := &chunkVenue{}
	chunks := v.start(t, nil)
	relay := chunks.dialing()
	failing := serve(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		res, err := relay.Get(chunks.URL + r.URL.RequestURI())
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		io.Copy(w, res.Body)
	})
	jan2026 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	got, err := failing.client(t, nil).KLineRange(context.Background(), "BTC-USDT", venueapi.Period1Min, jan2026, jan2026+4999*60)
	var un *venue.UnavailableError
	if !errors.As(err, &un) || len(got) != 2000 || got[1999].ID != jan2026+1999*60 {
		t.Fatalf("error %v with %d candles, want the first chunk's 2000 and the failure", err, len(got))
	}
}

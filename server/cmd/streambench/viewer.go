package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// viewer is one chart: a connection of its own from its client address,
// following one series.
type viewer struct {
	query string // contract_code and period
	from  *net.TCPAddr
	srv   *server
	venue *venue

	measuring atomic.Bool
	mu        sync.Mutex
	latencies []time.Duration // from the venue's answer of a version to this viewer's read of it
	unmatched atomic.Int64    // versions read that no venue answer holds
	refused   atomic.Int64    // polls not answered with candles: a 429, an error envelope under 200
}

// dial connects from the viewer's own address, until ctx ends.
func (v *viewer) dial(ctx context.Context) (net.Conn, *bufio.Reader, string, error) {
	u, err := url.Parse(v.srv.url)
	if err != nil {
		return nil, nil, "", err
	}
	d := net.Dialer{LocalAddr: v.from, Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, nil, "", err
	}
	context.AfterFunc(ctx, func() { conn.Close() })
	return conn, bufio.NewReaderSize(conn, 4096), u.Host, nil
}

// stream follows the series through the server's stream until ctx ends.
func (v *viewer) stream(ctx context.Context, connected func()) error {
	conn, br, host, err := v.dial(ctx)
	if err != nil {
		connected()
		return err
	}
	fmt.Fprintf(conn, "GET %s?%s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", venueapi.PathStreamKLine, v.query, host)
	res, err := http.ReadResponse(br, nil)
	connected()
	if err != nil {
		return fmt.Errorf("opening a stream from %s: %w", v.from.IP, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("opening a stream from %s: HTTP %d %.200s", v.from.IP, res.StatusCode, b)
	}
	r := bufio.NewReaderSize(res.Body, 1024)
	var id, ch string
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		switch {
		case len(line) == 1: // the blank line that ends an event
			if id != "" && ch != "" {
				v.read(ch+"|"+id, time.Now())
			}
			id, ch = "", ""
		case bytes.HasPrefix(line, []byte("id: ")):
			id = string(bytes.TrimSpace(line[4:]))
		case bytes.HasPrefix(line, []byte(`data: {"ch":"`)):
			rest := line[len(`data: {"ch":"`):]
			if end := bytes.IndexByte(rest, '"'); end > 0 {
				ch = string(rest[:end])
			}
		}
	}
}

// poll asks for the series' latest two candles once a second, as charts
// did before the stream, on a connection kept open.
func (v *viewer) poll(ctx context.Context, connected func()) error {
	conn, br, host, err := v.dial(ctx)
	connected()
	if err != nil {
		return err
	}
	request := []byte(fmt.Sprintf("GET %s?%s&size=2 HTTP/1.1\r\nHost: %s\r\n\r\n", venueapi.PathKLine, v.query, host))
	seen := map[int64]string{} // the version of each candle this viewer read last
	select {                   // viewers' polls fall anywhere in the second, as browsers' do
	case <-ctx.Done():
		return nil
	case <-time.After(rand.N(time.Second)):
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var body []byte
	for {
		if _, err := conn.Write(request); err != nil {
			return err
		}
		status, err := readResponse(br, &body)
		if err != nil {
			return err
		}
		readAt := time.Now()
		ch, recs := records(body)
		if status != http.StatusOK || ch == "" || len(recs) == 0 {
			v.refused.Add(1)
		} else {
			for _, rec := range recs {
				id, version := recordID(rec)
				if seen[id] != version {
					seen[id] = version
					v.read(ch+"|"+strconv.FormatInt(id, 10)+"."+version, readAt)
				}
			}
			if len(seen) > 4 && len(recs) > 0 {
				oldest, _ := recordID(recs[0])
				for id := range seen {
					if id < oldest {
						delete(seen, id)
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// readResponse reads an answer with a Content-Length into *body, cheaply:
// at ten thousand polls a second, this process shares the machine with the
// server it measures.
func readResponse(br *bufio.Reader, body *[]byte) (status int, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 {
		return 0, fmt.Errorf("a status line %q", line)
	}
	status, _ = strconv.Atoi(string(line[9:12]))
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
		}
	}
	if length < 0 {
		return 0, errors.New("an answer without Content-Length")
	}
	*body = slices.Grow((*body)[:0], length)[:length]
	_, err = io.ReadFull(br, *body)
	return status, err
}

// records splits a KLine answer the gateway encoded, {"ch":"…",…,"data":[{…},…]…},
// into its channel and its records, as the cache holds them.
func records(body []byte) (string, [][]byte) {
	const chKey, dataKey = `{"ch":"`, `"data":[`
	if !bytes.HasPrefix(body, []byte(chKey)) {
		return "", nil
	}
	ch, _, _ := bytes.Cut(body[len(chKey):], []byte(`"`))
	_, data, ok := bytes.Cut(body, []byte(dataKey))
	if !ok {
		return "", nil
	}
	var recs [][]byte
	for len(data) > 0 && data[0] == '{' {
		end := bytes.IndexByte(data, '}') // a record holds no object
		if end < 0 {
			break
		}
		recs = append(recs, data[:end+1])
		data = data[end+1:]
		if len(data) > 0 && data[0] == ',' {
			data = data[1:]
		}
	}
	return string(ch), recs
}

// read notes that the viewer read the candle version key at readAt.
func (v *viewer) read(key string, readAt time.Time) {
	if !v.measuring.Load() {
		return
	}
	at, known, inWindow := v.venue.answered(key)
	switch {
	case !known:
		v.unmatched.Add(1)
	case inWindow:
		v.mu.Lock()
		v.latencies = append(v.latencies, readAt.Sub(at))
		v.mu.Unlock()
	}
}

// recordID reads a record the gateway holds, {"id":…,…}: its id and its
// version, as the stream names it (the FNV-1a hash of its bytes).
func recordID(rec []byte) (int64, string) {
	digits := bytes.TrimPrefix(rec, []byte(`{"id":`))
	end := bytes.IndexByte(digits, ',')
	if end < 0 {
		return 0, ""
	}
	id, _ := strconv.ParseInt(string(digits[:end]), 10, 64)
	h := fnv.New64a()
	h.Write(rec)
	return id, strconv.FormatUint(h.Sum64(), 36)
}

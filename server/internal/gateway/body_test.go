package gateway_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestPositionLimitBodiesAreJSONObjectsOfStringsReadWhole(t *testing.T) {
	s := newStack(t, options{clock: newClock(10)})
	pad := strings.Repeat("x", 70<<10) // past the 64 KiB bound
	for _, tc := range []struct {
		name, contentType, body string
		wantStatus              int
		wantInMessage           string // the parameter named
	}{
		{"text/plain", "text/plain", `{"contract_code":"BTC-USDT"}`, 415, "Content-Type"},
		{"text/plain with a charset", "text/plain; charset=utf-8", `{"contract_code":"BTC-USDT"}`, 415, "Content-Type"},
		{"no Content-Type", "", `{"contract_code":"BTC-USDT"}`, 415, "Content-Type"},
		{"a form whose business_type lies past 64 KiB", "application/x-www-form-urlencoded",
			"contract_code=BTC-USDT-261225&pad=" + pad + "&business_type=futures", 415, "Content-Type"},
		{"JSON whose business_type lies past 64 KiB", "application/json",
			`{"contract_code":"BTC-USDT-261225","pad":"` + pad + `","business_type":"futures"}`, 413, "body"},
		{"null", "application/json", `null`, 200, "body"},
		{"an array", "application/json", `[{"contract_code":"BTC-USDT"}]`, 200, "body"},
		{"a string", "application/json", `"BTC-USDT"`, 200, "body"},
		{"two objects", "application/json", `{"contract_code":"BTC-USDT"} {}`, 200, "body"},
		{"a field that is null", "application/json", `{"contract_code":null}`, 200, "contract_code"},
		{"a field that is a number", "application/json", `{"business_type":1}`, 200, "business_type"},
		{"a field that is an array", "application/json", `{"pair":["BTC-USDT"]}`, 200, "pair"},
		{"a field that is an object", "application/json", `{"contract_type":{"v":"swap"}}`, 200, "contract_type"},
		{"a field that is true", "application/json", `{"contract_code":true}`, 200, "contract_code"},
		{"a field with no name that is a number", "application/json", `{"":1}`, 200, "invalid body:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.do(t, "POST", venueapi.PathPositionLimit, tc.body, "Content-Type", tc.contentType)
			kind, code := envelopeOf(t, a)
			_, msg := a.errCode(t)
			if a.status != tc.wantStatus || kind != "status" || code != venueapi.CodeInvalidInput || !strings.Contains(msg, tc.wantInMessage) {
				t.Fatalf("HTTP %d, %s envelope, code %d %q; want HTTP %d, 1030 naming %s", a.status, kind, code, msg, tc.wantStatus, tc.wantInMessage)
			}
		})
	}
	if n := s.sb.Received(venueapi.PathPositionLimit); n != 0 {
		t.Fatalf("the venue received %d calls, want none", n)
	}
}

// A body that stops short of its Content-Length is never read as fewer
// parameters: {"business then the end of the stream is a 400, not a query
// for swaps. So is a body slower than the server's read deadline.
func TestAPositionLimitBodyCutShortIsA400AndNeverForwarded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		readTimeout time.Duration // the server's; 0: none
		closeWrite  bool          // the client ends its stream
	}{
		{"the stream ends before the Content-Length", 0, true},
		{"the body is slower than the read deadline", 200 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, sb := sandboxtest.Start(t, sandbox.Config{Keys: []sandbox.Key{{Access: testAccess, Secret: testSecret, Read: true}}})
			client, err := venue.New(venue.Config{BaseURL: base, AccessKey: testAccess, SecretKey: testSecret, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			h, err := gateway.New(gateway.Config{Venue: client})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ReadTimeout = tc.readTimeout
			srv.Start()
			t.Cleanup(srv.Close)

			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second)) // a bound on a broken test, not a measurement
			const part = `{"business`
			io.WriteString(conn, "POST "+venueapi.PathPositionLimit+" HTTP/1.1\r\nHost: "+srv.Listener.Addr().String()+
				"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"+part)
			if tc.closeWrite {
				conn.(*net.TCPConn).CloseWrite()
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			code, msg := sandboxtest.ErrCode(t, body)
			if res.StatusCode != http.StatusBadRequest || code != venueapi.CodeInvalidInput || !strings.Contains(msg, "body") {
				t.Fatalf("HTTP %d code %d %q, want 400 with 1030 naming the body", res.StatusCode, code, msg)
			}
			if n := sb.Received(venueapi.PathPositionLimit); n != 0 {
				t.Fatalf("the venue received %d calls, want none", n)
			}
		})
	}
}

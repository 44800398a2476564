package gateway

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// namesAParameter fails t unless err is a *ParamError naming a parameter
// and a rule.
func namesAParameter(t *testing.T, in string, err error) {
	t.Helper()
	var pe *venueapi.ParamError
	if !errors.As(err, &pe) || pe.Param == "" || pe.Rule == "" {
		t.Fatalf("%q: error %v does not name a parameter and a rule", in, err)
	}
}

// FuzzParseStreamQuery: a stream's query is refused naming a parameter and
// a rule, or read as a contract and a period whose own query reads back.
func FuzzParseStreamQuery(f *testing.F) {
	for _, s := range []string{"contract_code=BTC-USDT&period=1min", "contract_code=BTC-USDT&period=1min&size=5", "=x&contract_code=BTC-USDT&period=1min", "period=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseStreamQuery(raw)
		if err != nil {
			namesAParameter(t, raw, err)
			return
		}
		back, err := parseStreamQuery(q.Values().Encode())
		if err != nil || back != q {
			t.Fatalf("%q: %+v reads back as %+v, %v", raw, q, back, err)
		}
	})
}

// FuzzLimitParamsNameTheParameter: a refusal of endpoint 2's parameters, in
// the query or the JSON body, names a parameter.
func FuzzLimitParamsNameTheParameter(f *testing.F) {
	f.Add("contract_code=BTC-USDT", `{"pair":"BTC-USDT"}`)
	f.Add("", `{"":1}`)
	f.Add("=%zz", `{}`)
	f.Fuzz(func(t *testing.T, query, body string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", "application/json")
		v, err := limitParams(httptest.NewRecorder(), r)
		if err == nil {
			_, err = venueapi.ParseLimitQuery(v)
		}
		if err != nil {
			namesAParameter(t, query+" "+body, err)
		}
	})
}

// FuzzParseLastEventID: an id the stream accepts is one it could have sent:
// written back as the stream writes ids, it reads as the same event.
func FuzzParseLastEventID(f *testing.F) {
	for _, s := range []string{"", "1700000000.1", "0.z", "1.", ".1", "-1.2", "99999999999999999999.1", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		last, ok, err := parseLastEventID(v)
		if err != nil {
			namesAParameter(t, v, err)
			return
		}
		if !ok {
			if v != "" {
				t.Fatalf("%q: no event, no error", v)
			}
			return
		}
		id := string(appendEventID(nil, last.id, last.version))
		again, ok, err := parseLastEventID(id)
		if err != nil || !ok || again != last {
			t.Fatalf("%q reads as %+v, written %q, read back %+v %v %v", v, last, id, again, ok, err)
		}
	})
}

// FuzzViewerCookie: no cookie value but the bytes the server issued, at
// most cookieLife ago, signs a viewer in.
func FuzzViewerCookie(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	s := &server{cfg: Config{ViewerTokens: []venue.Secret{"viewer-token"}}, now: func() time.Time { return now }}
	issued := cookieOf("viewer-token", now.Add(-time.Hour))
	want, _ := base64.RawURLEncoding.DecodeString(issued)
	f.Add(issued)
	f.Add(cookieOf("other-token", now))
	f.Add(cookieOf("viewer-token", now.Add(-cookieLife)))
	f.Add("")
	f.Fuzz(func(t *testing.T, value string) {
		if b, _ := base64.RawURLEncoding.DecodeString(value); s.validCookie(value) && string(b) != string(want) {
			t.Fatalf("%q signs a viewer in", value)
		}
	})
}

// FuzzReturnToStaysOnThisServer: wherever a sign-in is told to return to,
// the redirect it answers stays on this server, as a browser reads a
// Location (the WHATWG URL rules: tabs and newlines dropped, a backslash
// read as a slash, spaces and controls trimmed at the ends).
func FuzzReturnToStaysOnThisServer(f *testing.F) {
	for _, s := range []string{"/chart?contract_code=BTC-USDT", "//evil.example", "/\\evil.example", "/\t/evil.example", "https://evil.example/", "/../..//evil.example", "/login", "/./%2F/evil.example"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://riskchart.example/login")
	f.Fuzz(func(t *testing.T, next string) {
		r := httptest.NewRequest("POST", "https://riskchart.example/login", strings.NewReader(url.Values{"next": {next}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		http.Redirect(w, r, returnTo(r), http.StatusSeeOther)
		loc := w.Header().Get("Location")
		loc = strings.Trim(loc, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
		loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(loc)
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("next %q: Location %q does not parse: %v", next, w.Header().Get("Location"), err)
		}
		if got := base.ResolveReference(u); got.Host != base.Host || got.Scheme != base.Scheme {
			t.Fatalf("next %q: Location %q leads to %s", next, w.Header().Get("Location"), got)
		}
	})
}

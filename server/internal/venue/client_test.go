package venue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestNewRefusesAConfigurationItCannotUse(t *testing.T) {
	tests := []struct {
		name string
		cfg  venue.Config
	}{
		{"no base URL", venue.Config{}},
		{"a base URL without a scheme", venue.Config{BaseURL: "venue.example"}},
		{"a base URL of another scheme", venue.Config{BaseURL: "ftp://venue.example"}},
		{"a base URL with a query", venue.Config{BaseURL: "https://venue.example/?x=1"}},
		{"a base URL with a fragment", venue.Config{BaseURL: "https://venue.example/#x"}},
		{"a base URL without a host", venue.Config{BaseURL: "https:///path"}},
		{"an access key without its secret", venue.Config{BaseURL: "https://venue.example", AccessKey: "ak"}},
		{"a secret without its access key", venue.Config{BaseURL: "https://venue.example", SecretKey: "sk"}},
		{"a quota of no requests", venue.Config{BaseURL: "https://venue.example", PublicQuota: venueapi.Limit{Per: time.Second}}},
		{"a quota over no time", venue.Config{BaseURL: "https://venue.example", PrivateQuota: venueapi.Limit{Requests: 5}}},
		{"a quota over a microsecond", venue.Config{BaseURL: "https://venue.example", PublicQuota: venueapi.Limit{Requests: 1000, Per: time.Microsecond}}},
		{"a quota over 99 ms", venue.Config{BaseURL: "https://venue.example", PrivateQuota: venueapi.Limit{Requests: 1, Per: 99 * time.Millisecond}}},
		{"a quota of a billion requests at once", venue.Config{BaseURL: "https://venue.example", PublicQuota: venueapi.Limit{Requests: 1e9, Per: time.Hour}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := venue.New(tt.cfg); err == nil {
				t.Fatalf("New accepted %+v", tt.cfg)
			}
		})
	}
	for _, base := range []string{"https://user:pw-secret@venue.example/?x=1", "https://user:pw-secret@venue.example:port/"} {
		if _, err := venue.New(venue.Config{BaseURL: base}); err == nil || strings.Contains(err.Error(), "pw-secret") {
			t.Fatalf("refusing %s: %v: want an error that does not repeat the password", base, err)
		}
	}
	c, err := venue.New(venue.Config{BaseURL: "https://venue.example/api/"})
	if err != nil || c.HasKey() {
		t.Fatalf("a keyless client of a base with a path: %v, has a key: %t", err, c != nil && c.HasKey())
	}
	private, public := c.QuotaStatus()
	if private.Quota != (venueapi.Limit{Requests: 72, Per: 3 * time.Second}) || public.Quota != (venueapi.Limit{Requests: 800, Per: time.Second}) {
		t.Fatalf("default quotas %+v and %+v, want the venue's: 72 per 3 s and 800 per second", private.Quota, public.Quota)
	}
}

func TestASecretPrintsLogsAndMarshalsMasked(t *testing.T) {
	const plain = "hunter2-secret"
	s := venue.Secret(plain)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "secret", s)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "secret", s)
	js, err := json.Marshal(struct{ S venue.Secret }{s})
	if err != nil {
		t.Fatal(err)
	}
	cfg := venue.Config{BaseURL: "https://venue.example", AccessKey: "ak", SecretKey: s}
	for _, out := range []string{
		fmt.Sprint(s), fmt.Sprintf("%v %s %q %x %X %#v %d %10s", s, s, s, s, s, s, s, s), fmt.Sprintf("%+v %#v", cfg, cfg),
		logs.String(), string(js),
	} {
		if strings.Contains(out, plain) || strings.Contains(out, fmt.Sprintf("%x", plain)) {
			t.Fatalf("the secret shows in %s", out)
		}
	}
	if venue.Secret("").String() != "" || s.String() != "****" {
		t.Fatal("an empty secret must show as empty and a set one as ****")
	}
}

func TestNeitherErrorsNorLogsShowTheSecretOrTheSignature(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const secret = "hunter2-secret"
		srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n%2 == 1 {
				panic(http.ErrAbortHandler) // a connection cut mid-answer
			}
			w.WriteHeader(http.StatusBadGateway)
		})
		var logs bytes.Buffer
		c := srv.client(t, func(c *venue.Config) {
			c.SecretKey, c.Retries = secret, 3
			c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		for _, e := range endpoints[1:] {
			err := e.call(context.Background(), c)
			if err == nil {
				t.Fatalf("%s succeeded against a failing venue", e.name)
			}
			for _, out := range []string{err.Error(), logs.String()} {
				if strings.Contains(out, secret) || strings.Contains(out, "Signature") || strings.Contains(out, "AccessKeyId") {
					t.Fatalf("%s: the secret or the signed query shows in %q", e.name, out)
				}
			}
		}
		if !strings.Contains(logs.String(), "retrying") {
			t.Fatalf("no retry was logged, so the log was not checked: %q", logs.String())
		}
	})
}

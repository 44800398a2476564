package sandbox_test

import (
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
)

func TestParseKeys(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []sandbox.Key
		wantErr string // in the message; "" for success
	}{
		{"one pair", "ak:sk", []sandbox.Key{{Access: "ak", Secret: "sk", Read: true}}, ""},
		{"pairs with spaces around them", " ak:sk , second:s2 ", []sandbox.Key{{Access: "ak", Secret: "sk", Read: true}, {Access: "second", Secret: "s2", Read: true}}, ""},
		{"a secret holding a colon", "ak:s:k", []sandbox.Key{{Access: "ak", Secret: "s:k", Read: true}}, ""},
		{"nothing", "  ", nil, "sandbox keys: none given"},
		{"no colon", "aksk", nil, "pair 1 must be access:secret"},
		{"an empty secret", "ak:", nil, "pair 1 must be access:secret"},
		{"an empty access key", "ak:sk,:hidden", nil, "pair 2 must be access:secret"},
		{"a trailing comma", "ak:sk,", nil, "pair 2 must be access:secret"},
		{"a space inside", "ak:s k", nil, "pair 1 must be printable ASCII"},
		{"a repeated access key", "ak:sk,ak:other", nil, `pair 2 repeats the access key "ak"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sandbox.ParseKeys(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "sandbox keys: ") {
					t.Fatalf("error %v, want one naming the sandbox keys and %q", err, tt.wantErr)
				}
				for _, secret := range []string{"sk", "hidden", "other", "s k"} {
					if strings.Contains(tt.in, ":"+secret) && strings.Contains(err.Error(), secret) {
						t.Fatalf("error %q repeats the secret %q", err, secret)
					}
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("key %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// FuzzParseKeys: whatever the text holds, ParseKeys does not panic, its
// keys are non-empty and distinct, and an error never repeats a secret: it
// reads the same when every secret holds other characters of the same kind.
// (Looking for the secret in the message would see a secret "secret" in the
// rule the message states, "access:secret".)
func FuzzParseKeys(f *testing.F) {
	for _, s := range []string{"ak:sk", "a:b,c:d", "", ",", "a:b:c", "x:secretvalue,x:other", "é:ü", ":secret ", "secret:x,secret:secret", "0:0\xdf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := sandbox.ParseKeys(s)
		if err != nil {
			other := otherSecrets(s)
			_, err2 := sandbox.ParseKeys(other)
			if err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("error %q of %q reads %v with other secrets (%q): it depends on a secret", err, s, err2, other)
			}
			return
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if k.Access == "" || k.Secret == "" || !k.Read || seen[k.Access] {
				t.Fatalf("key %+v of %q", k, s)
			}
			seen[k.Access] = true
		}
	})
}

// otherSecrets is s with each printable character of every pair's secret
// (after the pair's first colon) replaced by the next one, never a comma:
// every pair stays as valid or invalid as it was, each secret differs in
// every character ParseKeys accepts, and the access keys are kept.
func otherSecrets(s string) string {
	pairs := strings.Split(s, ",")
	for i, pair := range pairs {
		colon := strings.IndexByte(pair, ':')
		if colon < 0 {
			continue
		}
		b := []byte(pair)
		for j := colon + 1; j < len(b); j++ {
			if b[j] > ' ' && b[j] <= '~' {
				b[j] = next(b[j])
			}
		}
		pairs[i] = string(b)
	}
	return strings.Join(pairs, ",")
}

// next is the printable ASCII character after c, '!' after '~', skipping
// the comma that parts pairs.
func next(c byte) byte {
	c++
	if c > '~' {
		c = '!'
	}
	if c == ',' {
		c++
	}
	return c
}

func TestGenerateKey_GivesDistinctKeysWithReadPermission(t *testing.T) {
	a, err := sandbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := sandbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if a.Access == b.Access || a.Secret == b.Secret || !a.Read || a.Disabled || len(a.Secret) < 32 {
		t.Fatalf("keys %+v and %+v", a, b)
	}
	// A generated key is one ParseKeys reads back.
	back, err := sandbox.ParseKeys(a.Access + ":" + a.Secret)
	if err != nil || back[0] != a {
		t.Fatalf("read back %v, %v", back, err)
	}
}

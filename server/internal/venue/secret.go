package venue

import (
	"fmt"
	"log/slog"
)

// Secret holds a secret (a key, a token). It prints, logs and marshals
// masked, so that it cannot leak through a format verb, a log line or a JSON
// answer; convert it to a string only where the secret is used.
type Secret string

const masked = "****"

// String masks the secret; an empty one stays empty, so "unset" shows.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return masked
}

// GoString masks the secret under %#v.
func (s Secret) GoString() string { return s.String() }

// Format masks the secret under every verb, %x and %q included.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	fmt.Fprint(f, s.String())
}

// LogValue masks the secret in slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON masks the secret in JSON.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// MarshalText masks the secret in text encodings.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

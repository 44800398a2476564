package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Key is an API key the sandbox accepts.
type Key struct {
	Access, Secret string
	Read           bool // read permission, which endpoints 1 and 2 need
	Disabled       bool
}

// ParseKeys parses "access:secret" pairs separated by commas, each with read
// permission. Errors name the pair and the rule, and never repeat a secret;
// the caller names where the text came from.
func ParseKeys(s string) ([]Key, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("sandbox keys: none given; want access:secret pairs, comma-separated")
	}
	var keys []Key
	seen := map[string]bool{}
	for i, pair := range strings.Split(s, ",") {
		access, secret, ok := strings.Cut(strings.TrimSpace(pair), ":")
		switch {
		case !ok || access == "" || secret == "":
			return nil, fmt.Errorf("sandbox keys: pair %d must be access:secret, both non-empty", i+1)
		case strings.ContainsFunc(access, notPrintable) || strings.ContainsFunc(secret, notPrintable):
			return nil, fmt.Errorf("sandbox keys: pair %d must be printable ASCII without spaces", i+1)
		case seen[access]:
			return nil, fmt.Errorf("sandbox keys: pair %d repeats the access key %q", i+1, access)
		}
		seen[access] = true
		keys = append(keys, Key{Access: access, Secret: secret, Read: true})
	}
	return keys, nil
}

// notPrintable is what a key may not hold: a client could not type it into
// a query string reliably.
func notPrintable(r rune) bool { return r <= ' ' || r > '~' }

// GenerateKey returns a random key pair with read permission, from crypto/rand.
func GenerateKey() (Key, error) {
	b := make([]byte, 8+24)
	if _, err := rand.Read(b); err != nil {
		return Key{}, fmt.Errorf("generating a sandbox key: %w", err)
	}
	return Key{Access: "sandbox-" + hex.EncodeToString(b[:8]), Secret: hex.EncodeToString(b[8:]), Read: true}, nil
}

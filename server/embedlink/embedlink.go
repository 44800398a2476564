// Package embedlink issues and checks signed embed links: a token that
// grants an iframe read access to some private panels of some contracts
// until it expires, so that the embedding page never holds a key.
//
// A token is base64url(JSON scope) "." base64url(HMAC-SHA256(key, JSON)).
package embedlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Panels an embed link can grant.
const (
	PanelTiers  = "tiers"
	PanelLimits = "limits"
)

// Scope is what a link grants.
type Scope struct {
	Contracts []string  `json:"c"` // contract codes
	Panels    []string  `json:"p"` // "tiers", "limits"
	Expires   time.Time `json:"e"`
}

// Allows reports whether the scope grants panel for contract at now.
func (s Scope) Allows(panel, contract string, now time.Time) bool {
	return now.Before(s.Expires) && slices.Contains(s.Panels, panel) && slices.Contains(s.Contracts, contract)
}

// Signer issues and checks links with one key.
type Signer struct{ key []byte }

// NewSigner returns a signer; the key must hold at least 32 bytes.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < 32 {
		return nil, errors.New("RISKCHART_EMBED_KEY must hold at least 32 characters")
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Issue returns a token for scope.
func (s *Signer) Issue(scope Scope) (string, error) {
	if len(scope.Contracts) == 0 || len(scope.Panels) == 0 {
		return "", errors.New("an embed link needs at least one contract and one panel")
	}
	for _, p := range scope.Panels {
		if p != PanelTiers && p != PanelLimits {
			return "", fmt.Errorf("panel %q: must be tiers or limits", p)
		}
	}
	scope.Expires = scope.Expires.UTC().Truncate(time.Second)
	payload, err := json.Marshal(scope)
	if err != nil {
		return "", fmt.Errorf("encoding the scope: %w", err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload)), nil
}

// Check verifies a token (in constant time) and returns its scope; expiry
// is the caller's to test with Scope.Allows.
func (s *Signer) Check(token string) (Scope, error) {
	body, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 4096 {
		return Scope{}, errors.New("malformed embed link")
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(payload)) {
		return Scope{}, errors.New("embed link signature does not match")
	}
	var scope Scope
	if err := json.Unmarshal(payload, &scope); err != nil {
		return Scope{}, errors.New("malformed embed link scope")
	}
	return scope, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// Package embedlink issues and checks signed embed links: a token that
// grants an iframe read access to some private panels of some contracts
// until it expires, so that the page that embeds Riskchart never holds a key.
//
// A token is base64url(JSON scope) "." base64url(HMAC-SHA256(key, JSON)),
// in the form app/embedscope writes and reads.
package embedlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/riskchart/riskchart/app/embedscope"
	"github.com/riskchart/riskchart/venueapi"
)

// Panels an embed link can grant.
const (
	PanelTiers  = embedscope.PanelTiers
	PanelLimits = embedscope.PanelLimits
)

// MinKeyLen is the shortest signing key accepted, in bytes.
const MinKeyLen = 32

// DefaultMaxTTL is the longest a link may last when Config says nothing: a
// quarter. A link cannot be revoked short of changing the key, so its
// lifetime is the exposure of a link that leaks
// (docs/decisions.md#embed-link-lifetime).
const DefaultMaxTTL = 90 * 24 * time.Hour

// Scope is what a link grants.
type Scope struct {
	Contracts []string  // contract codes, as the panels ask for them
	Panels    []string  // PanelTiers, PanelLimits
	Expires   time.Time // the link grants nothing from this instant on
}

// Allows reports whether the scope grants panel for contract at now.
func (s Scope) Allows(panel, contract string, now time.Time) bool {
	return now.Before(s.Expires) && slices.Contains(s.Panels, panel) && slices.Contains(s.Contracts, contract)
}

// validate checks a scope's contents, naming the field and the rule.
func (s Scope) validate() error {
	if len(s.Contracts) == 0 {
		return errors.New("contracts: an embed link needs at least one contract")
	}
	for _, c := range s.Contracts {
		if _, err := venueapi.ParseContractCode(c); err != nil {
			return fmt.Errorf("contracts: %w", err)
		}
	}
	if len(s.Panels) == 0 {
		return errors.New("panels: an embed link needs at least one panel")
	}
	for _, p := range s.Panels {
		if p != PanelTiers && p != PanelLimits {
			return fmt.Errorf("panels: %q must be %s or %s", p, PanelTiers, PanelLimits)
		}
	}
	return nil
}

// Config is what a Signer needs. Zero values are defaults.
type Config struct {
	Key    []byte           // at least MinKeyLen bytes
	MaxTTL time.Duration    // the longest a link may last from now, issued or checked; 0: DefaultMaxTTL
	Now    func() time.Time // nil: time.Now
}

// Signer issues and checks links with one key, within one longest lifetime.
type Signer struct {
	key    []byte
	maxTTL time.Duration
	now    func() time.Time
}

// New returns a signer for cfg.
func New(cfg Config) (*Signer, error) {
	if len(cfg.Key) < MinKeyLen {
		return nil, fmt.Errorf("an embed key must hold at least %d bytes, this one holds %d", MinKeyLen, len(cfg.Key))
	}
	if cfg.MaxTTL < 0 {
		return nil, fmt.Errorf("the longest embed link lifetime must be positive, not %s", cfg.MaxTTL)
	}
	if cfg.MaxTTL == 0 {
		cfg.MaxTTL = DefaultMaxTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Signer{key: slices.Clone(cfg.Key), maxTTL: cfg.MaxTTL, now: cfg.Now}, nil
}

// NewSigner returns a signer with the default longest lifetime and clock;
// the key must hold at least MinKeyLen bytes.
func NewSigner(key []byte) (*Signer, error) { return New(Config{Key: key}) }

// MaxTTL is the longest a link may last from now.
func (s *Signer) MaxTTL() time.Duration { return s.maxTTL }

// tooLong names the rule a scope expiring at exp breaks at now, or is nil.
func (s *Signer) tooLong(exp time.Time) error {
	if left := exp.Sub(s.now()); left > s.maxTTL {
		return fmt.Errorf("expires: an embed link may last at most %s, this one lasts %s more", s.maxTTL, left.Round(time.Second))
	}
	return nil
}

// Issue returns a token for scope. Contracts and panels are checked, and
// kept once each in a fixed order; the expiry is kept to the second, and
// may lie at most MaxTTL ahead. The token is at most embedscope.MaxToken
// bytes, the longest Check reads: a scope naming more contracts than fit
// is refused, so that every token Issue returns passes Check.
func (s *Signer) Issue(scope Scope) (string, error) {
	if err := scope.validate(); err != nil {
		return "", err
	}
	if err := s.tooLong(scope.Expires); err != nil {
		return "", err
	}
	p := embedscope.Payload{Contracts: sortedSet(scope.Contracts), Panels: sortedSet(scope.Panels), Expires: scope.Expires.Unix()}
	payload := embedscope.Encode(p)
	token := embedscope.Join(payload, s.mac(payload))
	if len(token) > embedscope.MaxToken {
		return "", fmt.Errorf("contracts: a link naming %d contracts is %d bytes, at most %d: issue fewer contracts per link",
			len(p.Contracts), len(token), embedscope.MaxToken)
	}
	return token, nil
}

// Check verifies a token and returns its scope. The signature is compared
// in constant time before anything in the payload is read. A link expiring
// more than MaxTTL ahead is refused: issued with a longer limit, or before
// the limit was lowered, which is how an operator shortens the links out
// there. Expiry is the caller's to test, with Scope.Allows at the time of
// the request.
func (s *Signer) Check(token string) (Scope, error) {
	payload, mac, err := embedscope.Split(token)
	if err != nil {
		return Scope{}, err
	}
	if !hmac.Equal(mac, s.mac(payload)) {
		return Scope{}, errors.New("embed link signature does not match")
	}
	w, err := embedscope.Decode(payload)
	if err != nil {
		return Scope{}, err
	}
	scope := Scope{Contracts: w.Contracts, Panels: w.Panels, Expires: time.Unix(w.Expires, 0).UTC()}
	if err := scope.validate(); err != nil { // signed, so only an older or buggy issuer
		return Scope{}, fmt.Errorf("embed link scope: %w", err)
	}
	if err := s.tooLong(scope.Expires); err != nil {
		return Scope{}, fmt.Errorf("embed link scope: %w", err)
	}
	return scope, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

func sortedSet(v []string) []string {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

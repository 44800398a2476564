// Package embedscope is the form of a signed embed link: a token of the
// scope it grants and the scope's signature, base64url(JSON scope) "."
// base64url(signature), URL-safe as it is, so that it rides in an iframe's
// address (?embed=). The server signs and checks links
// (server/internal/embedlink); the scope half is no secret, and an embed
// reads it to leave alone what its link does not grant, which the server
// would refuse (Withholds). It is pure Go, for the server and app.wasm.
package embedscope

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Panels a link can grant.
const (
	PanelTiers  = "tiers"
	PanelLimits = "limits"
)

// MaxToken bounds what is read of a token, about 250 contracts' worth:
// the server issues no longer link (server/internal/embedlink).
const MaxToken = 4096

// Payload is a scope as signed: short names and Unix seconds keep links
// short.
type Payload struct {
	Contracts []string `json:"c"`
	Panels    []string `json:"p"`
	Expires   int64    `json:"e"` // Unix seconds
}

// enc reads and writes a token's halves. Strict, and with no line breaks
// (which a decoder skips), so that a link has a single spelling: the one
// the server issued.
var enc = base64.RawURLEncoding.Strict()

// Encode is a payload's bytes, the ones that are signed.
func Encode(p Payload) []byte {
	b, _ := json.Marshal(p) // strings and an integer: it cannot fail
	return b
}

// Join is the token of a payload's bytes and their signature.
func Join(payload, sig []byte) string {
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(sig)
}

// Split is a token's payload bytes and signature, not yet checked.
func Split(token string) (payload, sig []byte, err error) {
	if len(token) > MaxToken {
		return nil, nil, errors.New("malformed embed link: too long")
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, nil, errors.New("malformed embed link: not base64url")
	}
	body, mac, ok := strings.Cut(token, ".")
	if !ok {
		return nil, nil, errors.New("malformed embed link: no signature")
	}
	payload, err1 := enc.DecodeString(body)
	sig, err2 := enc.DecodeString(mac)
	if err1 != nil || err2 != nil {
		return nil, nil, errors.New("malformed embed link: not base64url")
	}
	return payload, sig, nil
}

// Decode reads a payload's bytes.
func Decode(payload []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(payload, &p); err != nil {
		return Payload{}, errors.New("malformed embed link scope")
	}
	return p, nil
}

// Withholds reports whether token surely does not grant panel for
// contract: it is malformed, or its scope names neither. It reads the scope
// without its signature, which only the server can check, and not its
// expiry, which the server judges by its own clock: false means only that
// the server decides.
func Withholds(token, panel, contract string) bool {
	payload, _, err := Split(token)
	if err != nil {
		return true
	}
	p, err := Decode(payload)
	return err != nil || !slices.Contains(p.Panels, panel) || !slices.Contains(p.Contracts, contract)
}

// Package embedmsg is the postMessage protocol between a Riskchart embed
// (an iframe of /embed/chart, /embed/tiers or /embed/limits) and the page that
// frames it: the messages each side sends, how a command from the parent is
// read and checked, and which origins may take part. It is pure Go, so that
// the rules are tested natively; app/pages (through app/browser) does the talking.
//
// Every message is a JSON object with a "type". The README documents them.
package embedmsg

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/studies"
	"github.com/riskchart/riskchart/venueapi"
)

// Message types. The embed sends the first four, the parent the last.
const (
	TypeReady  = "riskchart:ready"  // the content is drawn; carries the view
	TypeHeight = "riskchart:height" // the content's preferred height, in CSS pixels
	TypeCandle = "riskchart:candle" // the candle the user hovered or clicked
	TypeError  = "riskchart:error"  // what went wrong, in words
	TypeSet    = "riskchart:set"    // parent → embed: show another contract, period or theme
)

// Routes of the embeds, as named in ready messages.
const (
	RouteChart  = "chart"
	RouteTiers  = "tiers"
	RouteLimits = "limits"
)

// Ready is sent when the content is drawn, again after each change of view.
type Ready struct {
	Type         string `json:"type"`
	Route        string `json:"route"`
	ContractCode string `json:"contract_code"`
	Period       string `json:"period,omitempty"` // the chart's
	// Access is false when a private panel shows the no-access state
	// (no signed embed link, or one that does not cover it); absent for the
	// chart, which is public.
	Access *bool `json:"access,omitempty"`
}

// ChartReady is the ready message of a drawn chart.
func ChartReady(contract string, p venueapi.Period) Ready {
	return Ready{Type: TypeReady, Route: RouteChart, ContractCode: contract, Period: string(p)}
}

// PanelReady is the ready message of a private panel (tiers or limits).
func PanelReady(route, contract string, access bool) Ready {
	return Ready{Type: TypeReady, Route: route, ContractCode: contract, Access: &access}
}

// Height is the content's preferred height.
type Height struct {
	Type   string `json:"type"`
	Height int    `json:"height"`
}

// NewHeight is a height message.
func NewHeight(px int) Height { return Height{Type: TypeHeight, Height: px} }

// Candle carries one candle, every number as the exact decimal string the
// venue sent (never a float: the parent decides how to show it).
type Candle struct {
	Type    string     `json:"type"`
	Clicked bool       `json:"clicked"` // false: hovered
	Candle  CandleData `json:"candle"`
}

// CandleData is a candle of the venue with its numbers as decimal strings.
type CandleData struct {
	ID            int64  `json:"id"` // the candle's start, UTC seconds
	Open          string `json:"open"`
	High          string `json:"high"`
	Low           string `json:"low"`
	Close         string `json:"close"`
	Vol           string `json:"vol"`
	Amount        string `json:"amount"`
	TradeTurnover string `json:"trade_turnover"`
	Count         string `json:"count"`
}

// NewCandle is the message for candle c.
func NewCandle(c venueapi.Candle, clicked bool) Candle {
	return Candle{Type: TypeCandle, Clicked: clicked, Candle: CandleData{
		ID: c.ID, Open: c.Open.String(), High: c.High.String(), Low: c.Low.String(), Close: c.Close.String(),
		Vol: c.Vol.String(), Amount: c.Amount.String(), TradeTurnover: c.TradeTurnover.String(), Count: c.Count.String(),
	}}
}

// Error says what went wrong.
type Error struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// NewError is an error message.
func NewError(msg string) Error { return Error{Type: TypeError, Message: msg} }

// Encode writes a message as the JSON text the embed posts (parsed on the
// JavaScript side, as go-app cannot hand structs to JavaScript).
func Encode(msg any) string {
	b, err := json.Marshal(msg)
	if err != nil { // the message types above always encode
		return `{"type":"` + TypeError + `","message":"unencodable message"}`
	}
	return string(b)
}

// Themes a parent may ask for.
const (
	ThemeAuto  = "auto"
	ThemeLight = "light"
	ThemeDark  = "dark"
)

// Set is a parent's command; empty fields keep what is shown.
type Set struct {
	ContractCode string
	Period       venueapi.Period
	Theme        string
	Scale        string // as ?scale= names it, checked (app/chartopt.ParseScale)
	Style        string // as ?style= names it, checked (app/chartopt.ParseKind)
	// Indicators are the studies to draw, as studies.FormatSpecs writes
	// them; "none" for none (an empty list would read as "unchanged").
	Indicators string
}

// IndicatorsNone is Set.Indicators when the parent asked for no studies.
const IndicatorsNone = "none"

// MaxMessage bounds what a parent may send: a command is a few dozen bytes.
const MaxMessage = 4096

// ErrNotACommand is a message that is not a Riskchart command (other
// scripts share the window's message channel): ignore it silently.
var ErrNotACommand = errors.New("not a riskchart command")

// ParseSet reads a message from the parent, given as the JSON text of its
// data. A message of another type, or not an object, is ErrNotACommand; a
// command with a bad field is a *venueapi.ParamError naming the field, to be
// reported back with an error message.
func ParseSet(data string) (Set, error) {
	if len(data) > MaxMessage {
		return Set{}, ErrNotACommand
	}
	var m struct {
		Type         string  `json:"type"`
		ContractCode *string `json:"contract_code"`
		Period       *string `json:"period"`
		Theme        *string `json:"theme"`
		Scale        *string `json:"scale"`
		Style        *string `json:"style"`
		Indicators   *string `json:"indicators"`
	}
	if json.Unmarshal([]byte(data), &m) != nil || m.Type != TypeSet {
		return Set{}, ErrNotACommand
	}
	var s Set
	if m.ContractCode != nil {
		if _, err := venueapi.ParseContractCode(*m.ContractCode); err != nil {
			return Set{}, err
		}
		s.ContractCode = *m.ContractCode
	}
	if m.Period != nil {
		p, err := venueapi.ParsePeriod(*m.Period)
		if err != nil {
			return Set{}, err
		}
		s.Period = p
	}
	if m.Theme != nil {
		switch *m.Theme {
		case ThemeAuto, ThemeLight, ThemeDark:
			s.Theme = *m.Theme
		default:
			return Set{}, &venueapi.ParamError{Param: "theme", Rule: "must be auto, light or dark", Value: *m.Theme}
		}
	}
	if m.Scale != nil {
		if _, err := chartopt.ParseScale(*m.Scale); err != nil {
			return Set{}, &venueapi.ParamError{Param: "scale", Rule: chartopt.ScaleRule, Value: *m.Scale}
		}
		s.Scale = *m.Scale
	}
	if m.Style != nil {
		if _, err := chartopt.ParseKind(*m.Style); err != nil {
			return Set{}, &venueapi.ParamError{Param: "style", Rule: chartopt.KindRule, Value: *m.Style}
		}
		s.Style = *m.Style
	}
	if m.Indicators != nil {
		specs, err := studies.ParseSpecs(*m.Indicators)
		if err != nil {
			return Set{}, err
		}
		s.Indicators = cmp.Or(studies.FormatSpecs(specs), IndicatorsNone)
	}
	if s == (Set{}) {
		return Set{}, &venueapi.ParamError{Param: "type", Rule: TypeSet + " needs contract_code, period, theme, scale, style or indicators"}
	}
	return s, nil
}

// AllowList is who may frame an embed and talk to it: the embed's own origin
// and the server's configured frame ancestors (RISKCHART_FRAME_ANCESTORS),
// read as the Content-Security-Policy reads them: exact origins, 'self', and
// a leading wildcard label ("https://*.example.com") for any subdomain.
type AllowList struct {
	self    string
	sources []string
}

// NewAllowList returns the allow-list of an embed served from self.
func NewAllowList(self string, sources []string) AllowList {
	a := AllowList{self: Origin(self)}
	for _, s := range sources {
		if s = strings.TrimSpace(s); s != "" {
			a.sources = append(a.sources, strings.ToLower(strings.TrimSuffix(s, "/")))
		}
	}
	return a
}

// Allows reports whether a message from origin may be obeyed, or one sent
// to it. The opaque origin "null" (sandboxed frames, file: pages) never is.
func (a AllowList) Allows(origin string) bool {
	o := Origin(origin)
	if o == "" {
		return false
	}
	if o == a.self {
		return true
	}
	for _, s := range a.sources {
		if s == "'self'" {
			continue // a.self, above
		}
		if matchSource(s, o) {
			return true
		}
	}
	return false
}

// Parent picks the origin to talk to: the first candidate the list allows.
// Candidates come in order of trust: the browser's own record of the
// framing page (location.ancestorOrigins), the page's claim (?parent=), the
// referrer. Empty: the embed talks to nobody.
func (a AllowList) Parent(candidates ...string) string {
	for _, c := range candidates {
		if a.Allows(c) {
			return Origin(c)
		}
	}
	return ""
}

// Origin is the scheme://host[:port] of a URL or origin, lower-cased, with a
// default port dropped; empty when it has none (including "null").
func Origin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return ""
	}
	host := strings.ToLower(u.Host)
	if u.Scheme == "http" {
		host = strings.TrimSuffix(host, ":80")
	} else {
		host = strings.TrimSuffix(host, ":443")
	}
	return u.Scheme + "://" + host
}

// matchSource reports whether origin o (normalised) matches one CSP source
// expression: an origin, or one whose host starts with the "*." wildcard.
func matchSource(src, o string) bool {
	scheme, host, ok := strings.Cut(src, "://")
	if !ok {
		return false
	}
	oScheme, oHost, _ := strings.Cut(o, "://")
	if scheme == "http" && oScheme == "https" {
		// An http source matches the host over https too, as browsers
		// read frame-ancestors (CSP3, "scheme-part match"); a source
		// without a port then means https's default one, and a port it
		// names stays that port. The page the policy lets frame an embed
		// is the page the embed talks to.
		scheme = "https"
	}
	if scheme != oScheme {
		return false
	}
	if rest, wild := strings.CutPrefix(host, "*."); wild {
		// the scheme's default port is no port, as Origin writes o
		if scheme == "https" {
			rest = strings.TrimSuffix(rest, ":443")
		} else {
			rest = strings.TrimSuffix(rest, ":80")
		}
		return len(oHost) > len(rest)+1 && strings.HasSuffix(oHost, "."+rest)
	}
	return Origin(scheme+"://"+host) == o
}

// Package venueapi is the venue's REST interface as Go values: the three
// endpoints' parameters and the rules they obey, the records and envelopes
// they answer with, and the error codes of docs/decisions.md.
//
// It is pure (no I/O, no net/http) so that every party that speaks the
// interface shares one reading of it: the venue client and the gateway on the
// server, the sandbox venue that imitates the venue, and the browser app.
// Every price, size and rate is a decimal.Decimal; nothing passes through
// float64.
package venueapi

// The venue's paths, relative to its base URL.
const (
	PathKLine         = "/sapi/v1/market/history/kline"
	PathTiers         = "/sapi/v1/position/risk/limit_tier"
	PathPositionLimit = "/sapi/v1/position/position_limit"
)

// Error codes of the venue (docs/decisions.md, Error codes).
const (
	CodeOK             = 200  // endpoint 1's success code
	CodeForbidden      = 403  // unknown or disabled access key, or no read permission
	CodeBusy           = 1004 // venue busy
	CodeNoSuchContract = 1013 // well-formed contract code that is not listed
	CodeInvalidInput   = 1030 // invalid input; the message names the parameter and the rule
	CodeRateLimited    = 1032 // request rate over the limit (HTTP 429)
	CodeBadSignature   = 1253 // signature verification failed
)

// Size limits of the KLine endpoint.
const (
	KLineMinSize     = 1
	KLineMaxSize     = 2000
	KLineDefaultSize = 150
	// KLineMaxSeconds is the largest from or to read, about the year 36812:
	// past it a month's arithmetic leaves time's range.
	KLineMaxSeconds = 1 << 40
)

package venueapi

import "github.com/shopspring/decimal"

// This file holds Riskchart's own wire shapes, not the venue's: what the
// server's routes send the browser app, declared once for both sides.

// Offer is a contract the server offers at its own contracts route
// (GET /api/v1/contracts), with what the venue does not list about it.
type Offer struct {
	Code          string          `json:"contract_code"`
	FaceValue     decimal.Decimal `json:"face_value"`
	PriceDecimals int32           `json:"price_decimals"`
}

// Riskchart's own routes, named once for the server that answers them and
// the app that asks.
const (
	PathContracts   = "/api/v1/contracts"    // the contracts on offer (Offer)
	PathEmbedConfig = "/api/v1/embed"        // the parent origins an embed may talk to
	PathStreamKLine = "/api/v1/stream/kline" // a series' changed candles, as Server-Sent Events
)

// EmbedHeader carries an embedded panel's signed link (possibly empty) on
// its calls; the server then judges those calls by the link alone.
const EmbedHeader = "X-Riskchart-Embed"

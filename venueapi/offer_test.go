package venueapi

import (
	"encoding/json"
	"net/textproto"
	"testing"

	"github.com/shopspring/decimal"
)

func TestAnOfferKeepsItsWireShape(t *testing.T) {
	const wire = `{"contract_code":"BTC-USDT","face_value":"0.001","price_decimals":1}`
	b, err := json.Marshal(Offer{Code: "BTC-USDT", FaceValue: decimal.RequireFromString("0.001"), PriceDecimals: 1})
	if err != nil || string(b) != wire {
		t.Fatalf("encoded %s (%v), want %s", b, err, wire)
	}
	var o Offer
	if err := json.Unmarshal([]byte(wire), &o); err != nil || o.Code != "BTC-USDT" || !o.FaceValue.Equal(decimal.RequireFromString("0.001")) || o.PriceDecimals != 1 {
		t.Fatalf("decoded %+v (%v)", o, err)
	}
}

func TestTheEmbedHeaderIsCanonical(t *testing.T) {
	// The gateway looks the header up in the map directly, to tell "absent"
	// from "empty"; that works only for the canonical spelling.
	if got := textproto.CanonicalMIMEHeaderKey(EmbedHeader); got != EmbedHeader {
		t.Fatalf("EmbedHeader %q is not canonical (%q)", EmbedHeader, got)
	}
}

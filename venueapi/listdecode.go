package venueapi

import (
	"encoding/json"
	"math"

	"github.com/shopspring/decimal"
)

// The app reads two lists in the first run of its code, before it can answer a
// click: the contracts the server offers and a contract's tiers, both carried
// by the page. With encoding/json that was the run's only decode by
// reflection, and V8 compiled its large decoder twice while the app started
// (docs/startup.md, "The lists read in one pass"). These readers take the
// common shape in one pass and leave anything else to encoding/json, so that
// the result is always what json.Unmarshal gives.

// DecodeTiers decodes an answer of the tier path, as json.Unmarshal into a
// TierEnvelope does (on an error, env holds what was read).
func DecodeTiers(raw []byte) (TierEnvelope, error) {
	return fastOrJSON(raw, FastTiers)
}

// FastTiers decodes raw when it is sure to agree with encoding/json; ok is
// false when it is not sure (or raw is invalid), and then env is meaningless.
func FastTiers(raw []byte) (env TierEnvelope, ok bool) {
	s := scanner{b: raw}
	_, ok = s.object(tierEnvelopeKeys[:], func(f int) bool {
		if s.null() { // leaves the field as it is; data becomes nil
			if f == 2 { // data
				env.Data = nil
			}
			return true
		}
		var ok bool
		switch f {
		case 0: // code
			var n int64
			n, ok = s.wholeNumber(math.MinInt, math.MaxInt)
			env.Code = int(n)
		case 1: // message
			env.Message, ok = s.text()
		case 2: // data
			env.Data, ok = s.tiers()
		case 3: // ts
			env.Ts, ok = s.wholeNumber(math.MinInt64, math.MaxInt64)
		case 4: // stale
			env.Stale, ok = s.boolean()
		}
		return ok
	})
	return env, ok && s.end()
}

var (
	tierEnvelopeKeys = [...]string{"code", "message", "data", "ts", "stale"}
	tierKeys         = [...]string{"contract_code", "margin_mode", "tier", "max_lever", "maintenance_margin_rate", "max_volume", "min_volume", "volume_unit"}
)

// tiers reads an array of tier records.
func (s *scanner) tiers() ([]Tier, bool) { return list(s, 8, s.tier) }

// tier reads a tier record with every field given, none null and no string
// empty: Tier.UnmarshalJSON's rules for the rest are left to it.
func (s *scanner) tier(t *Tier) bool {
	seen, ok := s.object(tierKeys[:], func(f int) bool {
		switch f {
		case 0, 1, 7:
			v, ok := s.text()
			*[...]*string{&t.ContractCode, &t.MarginMode, 7: &t.VolumeUnit}[f] = v
			return ok && v != ""
		case 2:
			n, ok := s.integer() // a number or a string, as TierNumber reads it
			t.Tier = TierNumber(n)
			return ok
		}
		d, ok := s.decimal()
		*[...]*decimal.Decimal{3: &t.MaxLever, &t.MaintenanceMarginRate, &t.MaxVolume, &t.MinVolume}[f] = d
		return ok
	})
	return ok && seen == 1<<len(tierKeys)-1
}

// DecodeContracts decodes the answer of the server's contracts route
// (PathContracts, {"data":[Offer...]}), as json.Unmarshal does.
func DecodeContracts(raw []byte) ([]Offer, error) {
	if offers, ok := FastContracts(raw); ok {
		return offers, nil
	}
	var v struct {
		Data []Offer `json:"data"`
	}
	err := json.Unmarshal(raw, &v)
	return v.Data, err
}

// FastContracts decodes raw when it is sure to agree with encoding/json; ok
// is false when it is not sure (or raw is invalid).
func FastContracts(raw []byte) (offers []Offer, ok bool) {
	s := scanner{b: raw}
	_, ok = s.object(contractListKeys[:], func(int) bool {
		if s.null() {
			offers = nil
			return true
		}
		var ok bool
		offers, ok = list(&s, 16, s.offer)
		return ok
	})
	return offers, ok && s.end()
}

var (
	contractListKeys = [...]string{"data"}
	offerKeys        = [...]string{"contract_code", "face_value", "price_decimals"}
)

// offer reads an offer whose given fields are not null; a field left out
// stays zero, as with encoding/json.
func (s *scanner) offer(o *Offer) bool {
	_, ok := s.object(offerKeys[:], func(f int) bool {
		var ok bool
		switch f {
		case 0:
			o.Code, ok = s.text()
		case 1:
			o.FaceValue, ok = s.decimal()
		case 2:
			var n int64
			n, ok = s.wholeNumber(math.MinInt32, math.MaxInt32)
			o.PriceDecimals = int32(n)
		}
		return ok
	})
	return ok
}

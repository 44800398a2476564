package sandbox

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

const defaultLeverRate = 10

// businessParams gathers a request's business parameters: from the query
// string less the signature parameters, then (for a POST) from a JSON or form
// body (DECISIONS.md, Signing: POST payload).
func businessParams(r *http.Request) url.Values {
	v := url.Values{}
	for k, vs := range r.URL.Query() {
		switch k {
		case venueapi.ParamAccessKeyID, venueapi.ParamSignatureMethod, venueapi.ParamSignatureVersion, venueapi.ParamTimestamp, venueapi.ParamSignature:
			continue
		}
		v[k] = vs
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return v
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || len(body) == 0 {
		return v
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		if form, err := url.ParseQuery(string(body)); err == nil {
			for k, vs := range form {
				v[k] = vs
			}
		}
	default: // JSON, the decided encoding
		var q map[string]any
		if err := json.Unmarshal(body, &q); err == nil {
			for k, x := range q {
				if s, ok := x.(string); ok {
					v.Set(k, s)
				} else {
					v.Set(k, "\x00not-a-string") // fails the rules with a message naming k
				}
			}
		} else {
			v.Set("body", "\x00malformed")
		}
	}
	return v
}

// serveLimits answers endpoint 2 (signed): every parameter rule of the
// endpoint, contract_code over pair + contract_type, business type swap by default.
func (s *Sandbox) serveLimits(w http.ResponseWriter, r *http.Request) {
	params := businessParams(r)
	if params.Get("body") != "" {
		s.writeError(w, venueapi.PathPositionLimit, http.StatusOK, venueapi.CodeInvalidInput, "invalid body: must be a JSON object of string parameters")
		return
	}
	q, err := venueapi.ParseLimitQuery(params)
	if err != nil {
		s.writeParamError(w, venueapi.PathPositionLimit, err)
		return
	}
	now := s.now()
	var selected []Market
	if q.ContractCode != "" {
		m, err := resolve(q.ContractCode, now)
		if err != nil {
			s.writeParamError(w, venueapi.PathPositionLimit, err)
			return
		}
		selected = []Market{m}
	} else {
		business := q.Business()
		for _, m := range markets(now) {
			if q.Pair != "" && m.Base+"-"+m.Quote != q.Pair {
				continue
			}
			if q.ContractType != "" && m.Type != q.ContractType {
				continue
			}
			isSwap := m.Kind == venueapi.KindSwap
			if (business == venueapi.BusinessSwap && !isSwap) || (business == venueapi.BusinessFutures && isSwap) {
				continue
			}
			selected = append(selected, m)
		}
	}
	data := make([]venueapi.PositionLimit, 0, len(selected))
	for _, m := range selected {
		data = append(data, s.limit(m, now))
	}
	s.writeJSON(w, venueapi.LimitEnvelope{Status: venueapi.StatusOK, Data: data, Ts: now.UnixMilli()})
}

// limit computes an account's limits on m: the largest position its
// lever_rate allows by the tier ladder, in USDT at the mark price, and in
// contracts as floor(value / (mark price × face value)) (DECISIONS.md).
func (s *Sandbox) limit(m Market, now time.Time) venueapi.PositionLimit {
	a, _ := assetOf(m.Base)
	lever := defaultLeverRate
	if l, ok := s.levers[m.Code]; ok && l > 0 {
		lever = l
	}
	mark := s.markPrice(m, now)
	value := decimal.Zero
	for _, t := range tiers(m, a) {
		if t.MaxLever.LessThan(decimal.NewFromInt(int64(lever))) {
			break
		}
		value = t.MaxVolume
		if t.VolumeUnit == venueapi.UnitContract {
			value = t.MaxVolume.Mul(a.face).Mul(mark)
		}
	}
	contracts := decimal.Zero
	if per := mark.Mul(a.face); per.IsPositive() {
		contracts = value.Div(per).Floor()
	}
	business := venueapi.BusinessFutures
	if m.Kind == venueapi.KindSwap {
		business = venueapi.BusinessSwap
	}
	return venueapi.PositionLimit{
		Symbol: m.Base, ContractCode: m.Code, MarginMode: venueapi.MarginCross,
		BuyLimit: contracts, SellLimit: contracts, ContractType: m.Type, Pair: m.Base + "-" + m.Quote,
		BusinessType: business, LeverRate: lever, BuyLimitValue: value, SellLimitValue: value,
		MarkPrice: mark, TradePartition: quote,
	}
}

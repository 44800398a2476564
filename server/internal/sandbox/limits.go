package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// defaultLeverRate is every account's lever_rate on a contract
// Config.LeverRates does not name.
const defaultLeverRate = 10

// maxBody bounds endpoint 2's body: its four parameters fit in far less.
const maxBody = 16 << 10

// limitParams gathers endpoint 2's business parameters wherever the client
// put them (docs/decisions.md, Position-limit payload): the query string (v),
// and for a POST a JSON object of strings or a form. A parameter given in two
// places is given twice, which venueapi.ParseLimitQuery refuses.
func limitParams(w http.ResponseWriter, r *http.Request, v url.Values) (url.Values, error) {
	if r.Method != http.MethodPost {
		return v, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
		return nil, &venueapi.ParamError{Param: "body", Rule: fmt.Sprintf("must be at most %d bytes", maxBody)}
	} else if err != nil {
		return nil, &venueapi.ParamError{Param: "body", Rule: "must be sent whole: it was cut short"}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return v, nil
	}
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch media {
	case "", "application/json":
		// null is an object without members, as json.Unmarshal into a map reads it.
		members, ok := venueapi.JSONMembers(body)
		if !ok && string(bytes.TrimSpace(body)) != "null" {
			return nil, &venueapi.ParamError{Param: "body", Rule: "must be a JSON object"}
		}
		for _, m := range members {
			var s string
			if string(m.Value) == "null" {
				continue
			}
			if err := json.Unmarshal(m.Value, &s); err != nil {
				return nil, &venueapi.ParamError{Param: m.Name, Rule: "must be a JSON string", Value: string(m.Value)}
			}
			v[m.Name] = append(v[m.Name], s)
		}
	case "application/x-www-form-urlencoded":
		form, err := venueapi.ParseQuery(string(body)) // names the pair and the rule it breaks
		if err != nil {
			return nil, err
		}
		for k, vs := range form {
			v[k] = append(v[k], vs...)
		}
	default:
		return nil, &venueapi.ParamError{Param: "Content-Type", Rule: "must be application/json or application/x-www-form-urlencoded", Value: media}
	}
	return v, nil
}

// serveLimits answers endpoint 2 (signed): contract_code wins over pair and
// contract_type; without it, the listed contracts of the business type (swap
// by default) that match pair and contract_type. A contract code or a pair
// that is not listed is 1013, as on endpoint 1, never an empty list: a listed
// pair without contracts of the type asked for is the empty list.
func (s *Sandbox) serveLimits(w http.ResponseWriter, r *http.Request, query url.Values) {
	params, err := limitParams(w, r, query)
	if err != nil {
		s.writeParamError(w, venueapi.PathPositionLimit, err)
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
		listed := q.Pair == ""
		for _, m := range markets(now) {
			listed = listed || m.Pair() == q.Pair
			swap := m.Kind == venueapi.KindSwap
			switch {
			case q.Pair != "" && m.Pair() != q.Pair,
				q.ContractType != "" && m.Type != q.ContractType,
				business == venueapi.BusinessSwap && !swap,
				business == venueapi.BusinessFutures && swap:
				continue
			}
			selected = append(selected, m)
		}
		if !listed {
			s.writeParamError(w, venueapi.PathPositionLimit, errNotListed{"pair", q.Pair})
			return
		}
	}
	data := make([]venueapi.PositionLimit, 0, len(selected))
	for _, m := range selected {
		data = append(data, s.limit(m, now))
	}
	s.writeJSON(w, venueapi.PathPositionLimit, venueapi.LimitEnvelope{Status: venueapi.StatusOK, Data: data, Ts: now.UnixMilli()})
}

// leverRate is the accounts' lever_rate on m: Config.LeverRates by the
// contract's code, or by its -CW/-NW/-CQ/-NQ code for a future, else the default.
func (s *Sandbox) leverRate(m Market) int {
	if l, ok := s.levers[m.Code]; ok {
		return l
	}
	if m.Kind == venueapi.KindFuture {
		if l, ok := s.levers[m.Pair()+"-"+venueapi.TypeCodeSuffix(m.Type)]; ok {
			return l
		}
	}
	return defaultLeverRate
}

// limit is an account's position limit on m (docs/decisions.md,
// Position-limit formula): the upper bound of the last tier whose maximum
// leverage still allows the account's lever_rate, in USDT at the mark price,
// and in contracts floor(value / (mark price × face value)).
func (s *Sandbox) limit(m Market, now time.Time) venueapi.PositionLimit {
	a, _ := assetOf(m.Base)
	lever := s.leverRate(m)
	mark := s.window(m, now).markPrice()
	perContract := mark.Mul(a.face)
	value := decimal.Zero
	for _, t := range tiers(m, a) {
		if t.MaxLever.LessThan(decimal.NewFromInt(int64(lever))) {
			break
		}
		value = t.MaxVolume
		if t.VolumeUnit == venueapi.UnitContract {
			value = t.MaxVolume.Mul(perContract)
		}
	}
	contracts := decimal.Zero
	if perContract.IsPositive() {
		contracts = value.Div(perContract).Floor()
	}
	business := venueapi.BusinessFutures
	if m.Kind == venueapi.KindSwap {
		business = venueapi.BusinessSwap
	}
	return venueapi.PositionLimit{
		Symbol: m.Base, ContractCode: m.Code, MarginMode: venueapi.MarginCross,
		BuyLimit: contracts, SellLimit: contracts, ContractType: m.Type, Pair: m.Pair(),
		BusinessType: business, LeverRate: lever, BuyLimitValue: value, SellLimitValue: value,
		MarkPrice: mark, TradePartition: quote,
	}
}

// checkLeverRates validates Config.LeverRates: codes of listed assets (a
// swap, a dated future or a -CW/-NW/-CQ/-NQ code), rates from 1 to the
// contract's highest leverage.
func checkLeverRates(levers map[string]int) error {
	for code, l := range levers {
		c, err := venueapi.ParseContractCode(code)
		if err != nil {
			return fmt.Errorf("LeverRates: %w", err)
		}
		a, ok := assetOf(c.Base)
		if !ok || c.Quote != quote || (c.Kind != venueapi.KindSwap && !a.futures) {
			return fmt.Errorf("LeverRates: contract %s is not one the sandbox lists", code)
		}
		if top := a.ladder[0].lever; l < 1 || int64(l) > top {
			return fmt.Errorf("LeverRates: lever rate %d of %s must be from 1 to %d", l, code, top)
		}
	}
	return nil
}

package venueapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"
)

// Candle is a KLine record. Id is the candle's start in UTC seconds.
type Candle struct {
	ID            int64
	Vol           decimal.Decimal // volume in contracts, both sides
	Count         decimal.Decimal // order quantity, both sides
	Open          decimal.Decimal
	Close         decimal.Decimal
	Low           decimal.Decimal
	High          decimal.Decimal
	Amount        decimal.Decimal // volume in the base asset: vol × face value
	TradeTurnover decimal.Decimal // Σ vol × face value × price, in the quote asset
}

// Equal reports whether c and o are the same candle with the same figures,
// each compared as a number (1.50 equals 1.5).
func (c Candle) Equal(o Candle) bool {
	return c.ID == o.ID && c.Open.Equal(o.Open) && c.Close.Equal(o.Close) && c.High.Equal(o.High) && c.Low.Equal(o.Low) &&
		c.Vol.Equal(o.Vol) && c.Count.Equal(o.Count) && c.Amount.Equal(o.Amount) && c.TradeTurnover.Equal(o.TradeTurnover)
}

type candleWire struct {
	ID            *WireInt    `json:"id"`
	Vol           wireDecimal `json:"vol"`
	Count         wireDecimal `json:"count"`
	Open          wireDecimal `json:"open"`
	Close         wireDecimal `json:"close"`
	Low           wireDecimal `json:"low"`
	High          wireDecimal `json:"high"`
	Amount        wireDecimal `json:"amount"`
	TradeTurnover wireDecimal `json:"trade_turnover"`
}

// UnmarshalJSON decodes a KLine record whose numbers are JSON numbers or
// strings, exactly. Every field is required; unknown ones are ignored.
func (c *Candle) UnmarshalJSON(b []byte) error {
	var w candleWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("kline record: %w", err)
	}
	if w.ID == nil {
		return &MissingFieldError{Record: "kline", Field: "id"}
	}
	fields := []struct {
		name string
		v    wireDecimal
		dst  *decimal.Decimal
	}{
		{"vol", w.Vol, &c.Vol}, {"count", w.Count, &c.Count}, {"open", w.Open, &c.Open}, {"close", w.Close, &c.Close},
		{"low", w.Low, &c.Low}, {"high", w.High, &c.High}, {"amount", w.Amount, &c.Amount}, {"trade_turnover", w.TradeTurnover, &c.TradeTurnover},
	}
	for _, f := range fields {
		if !f.v.Valid {
			return &MissingFieldError{Record: "kline", Field: f.name}
		}
		*f.dst = f.v.Decimal
	}
	c.ID = int64(*w.ID)
	return nil
}

// WireInt is an int or long the venue may write as a JSON number or a
// string (the spec's "numbers may arrive as strings").
type WireInt int64

// UnmarshalJSON accepts 1700000040 and "1700000040"; null leaves n as it is.
func (n *WireInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := b
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not an integer", b)
	}
	*n = WireInt(v)
	return nil
}

// MarshalJSON writes the record as the venue does, numbers as JSON numbers.
func (c Candle) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// AppendJSON appends the record's JSON to b, without reflection.
func (c Candle) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, c.ID, 10)
	b = appendNum(b, `,"vol":`, c.Vol)
	b = appendNum(b, `,"count":`, c.Count)
	b = appendNum(b, `,"open":`, c.Open)
	b = appendNum(b, `,"close":`, c.Close)
	b = appendNum(b, `,"low":`, c.Low)
	b = appendNum(b, `,"high":`, c.High)
	b = appendNum(b, `,"amount":`, c.Amount)
	b = appendNum(b, `,"trade_turnover":`, c.TradeTurnover)
	return append(b, '}')
}

// Candles are KLine records as one JSON array. The browser app keeps the
// candles a chart showed in this shape (app/browser's last-seen storage):
// written and read in one pass, as the answers are, since encoding/json,
// by reflection in WebAssembly, took 35 ms to write 300 of them in a cold
// start (docs/startup.md, "The chart's kept candles").
type Candles []Candle

// AppendJSON appends the array to b, as json.Marshal writes a []Candle.
func (cs Candles) AppendJSON(b []byte) []byte { return appendSlice(b, cs) }

// record is a record that writes its own JSON.
type record interface{ AppendJSON(b []byte) []byte }

// appendArray appends the records as a JSON array, [] for none.
func appendArray[T record](b []byte, rs []T) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = r.AppendJSON(b)
	}
	return append(b, ']')
}

// appendSlice appends the records as json.Marshal writes a slice of them:
// null when rs is nil.
func appendSlice[T record](b []byte, rs []T) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	return appendArray(b, rs)
}

// UnmarshalJSON reads an array of records as DecodeCandles does; null
// leaves cs as it is, as the json.Unmarshaler convention asks.
func (cs *Candles) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v, err := DecodeCandles(b)
	if err != nil {
		return err
	}
	*cs = v
	return nil
}

func appendNum(b []byte, key string, d decimal.Decimal) []byte {
	return AppendDecimal(append(b, key...), d)
}

// MissingFieldError is a record without one of its required fields.
type MissingFieldError struct {
	Record, Field string
}

func (e *MissingFieldError) Error() string {
	return fmt.Sprintf("%s record: required field %q is missing", e.Record, e.Field)
}

// TierNumber is a tier's number, which the venue writes as a JSON number or
// as a string.
type TierNumber int

// UnmarshalJSON accepts 3 and "3".
func (n *TierNumber) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("tier %s is not an integer", b)
	}
	*n = TierNumber(v)
	return nil
}

// Tier is a risk-limit tier record of endpoint 1. On the wire its numbers are
// strings; Tier.MarshalJSON writes them so.
type Tier struct {
	ContractCode          string          `json:"contract_code"`
	MarginMode            string          `json:"margin_mode"`
	Tier                  TierNumber      `json:"tier"`
	MaxLever              decimal.Decimal `json:"max_lever"`
	MaintenanceMarginRate decimal.Decimal `json:"maintenance_margin_rate"`
	MaxVolume             decimal.Decimal `json:"max_volume"`
	MinVolume             decimal.Decimal `json:"min_volume"`
	VolumeUnit            string          `json:"volume_unit"` // "contract" or "usdt"
}

// AppendJSON appends the record's JSON to b as encoding/json writes a Tier,
// without reflection: the decimals as decimal.Decimal writes them (strings,
// unless decimal.MarshalJSONWithoutQuotes).
func (t Tier) AppendJSON(b []byte) []byte {
	b = appendString(append(b, `{"contract_code":`...), t.ContractCode)
	b = appendString(append(b, `,"margin_mode":`...), t.MarginMode)
	b = strconv.AppendInt(append(b, `,"tier":`...), int64(t.Tier), 10)
	b = appendQuotedNum(b, `,"max_lever":`, t.MaxLever)
	b = appendQuotedNum(b, `,"maintenance_margin_rate":`, t.MaintenanceMarginRate)
	b = appendQuotedNum(b, `,"max_volume":`, t.MaxVolume)
	b = appendQuotedNum(b, `,"min_volume":`, t.MinVolume)
	b = appendString(append(b, `,"volume_unit":`...), t.VolumeUnit)
	return append(b, '}')
}

// appendQuotedNum appends key and d as decimal.Decimal's MarshalJSON writes it.
func appendQuotedNum(b []byte, key string, d decimal.Decimal) []byte {
	if decimal.MarshalJSONWithoutQuotes {
		return appendNum(b, key, d)
	}
	return append(appendNum(append(b, key...), `"`, d), '"')
}

// Volume units of a tier band.
const (
	UnitContract = "contract"
	UnitUSDT     = "usdt"
)

// UnmarshalJSON decodes a tier record, requiring every field.
func (t *Tier) UnmarshalJSON(b []byte) error {
	type plain Tier
	var w struct {
		plain
		Tier                  *TierNumber `json:"tier"`
		MaxLever              wireDecimal `json:"max_lever"`
		MaintenanceMarginRate wireDecimal `json:"maintenance_margin_rate"`
		MaxVolume             wireDecimal `json:"max_volume"`
		MinVolume             wireDecimal `json:"min_volume"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("tier record: %w", err)
	}
	*t = Tier(w.plain)
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"contract_code", t.ContractCode != ""}, {"margin_mode", t.MarginMode != ""}, {"tier", w.Tier != nil},
		{"max_lever", w.MaxLever.Valid}, {"maintenance_margin_rate", w.MaintenanceMarginRate.Valid},
		{"max_volume", w.MaxVolume.Valid}, {"min_volume", w.MinVolume.Valid}, {"volume_unit", t.VolumeUnit != ""},
	} {
		if !f.ok {
			return &MissingFieldError{Record: "tier", Field: f.name}
		}
	}
	t.Tier = *w.Tier
	t.MaxLever, t.MaintenanceMarginRate = w.MaxLever.Decimal, w.MaintenanceMarginRate.Decimal
	t.MaxVolume, t.MinVolume = w.MaxVolume.Decimal, w.MinVolume.Decimal
	return nil
}

// PositionLimit is a position-limit record of endpoint 2. On the wire its
// decimals are JSON numbers.
type PositionLimit struct {
	Symbol         string
	ContractCode   string
	MarginMode     string
	BuyLimit       decimal.Decimal // maximum long position, in contracts
	SellLimit      decimal.Decimal // maximum short position, in contracts
	ContractType   ContractType
	Pair           string
	BusinessType   string
	LeverRate      int
	BuyLimitValue  decimal.Decimal // maximum long position, in USDT
	SellLimitValue decimal.Decimal // maximum short position, in USDT
	MarkPrice      decimal.Decimal
	TradePartition string // deprecated by the venue; carried, never shown
}

// MarshalJSON writes the record as the venue does, decimals as JSON numbers.
func (p PositionLimit) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }

// AppendJSON appends the record's JSON to b, without reflection: the keys in
// the venue's order, the decimals as JSON numbers, the strings as
// encoding/json writes them.
func (p PositionLimit) AppendJSON(b []byte) []byte {
	b = appendString(append(b, `{"symbol":`...), p.Symbol)
	b = appendString(append(b, `,"contract_code":`...), p.ContractCode)
	b = appendString(append(b, `,"margin_mode":`...), p.MarginMode)
	b = appendNum(b, `,"buy_limit":`, p.BuyLimit)
	b = appendNum(b, `,"sell_limit":`, p.SellLimit)
	b = appendString(append(b, `,"contract_type":`...), string(p.ContractType))
	b = appendString(append(b, `,"pair":`...), p.Pair)
	b = appendString(append(b, `,"business_type":`...), p.BusinessType)
	b = strconv.AppendInt(append(b, `,"lever_rate":`...), int64(p.LeverRate), 10)
	b = appendNum(b, `,"buy_limit_value":`, p.BuyLimitValue)
	b = appendNum(b, `,"sell_limit_value":`, p.SellLimitValue)
	b = appendNum(b, `,"mark_price":`, p.MarkPrice)
	b = appendString(append(b, `,"trade_partition":`...), p.TradePartition)
	return append(b, '}')
}

// isLeverRate reports whether d is a leverage a position-limit record may
// carry: a whole number from 0 to 10000.
func isLeverRate(d decimal.Decimal) bool {
	return d.IsInteger() && d.Sign() >= 0 && !d.GreaterThan(decimal.NewFromInt(10000))
}

// UnmarshalJSON decodes a position-limit record exactly, numbers given as
// JSON numbers or strings, requiring every field but the deprecated
// trade_partition.
func (p *PositionLimit) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol         *string     `json:"symbol"`
		ContractCode   *string     `json:"contract_code"`
		MarginMode     *string     `json:"margin_mode"`
		BuyLimit       wireDecimal `json:"buy_limit"`
		SellLimit      wireDecimal `json:"sell_limit"`
		ContractType   *string     `json:"contract_type"`
		Pair           *string     `json:"pair"`
		BusinessType   *string     `json:"business_type"`
		LeverRate      wireDecimal `json:"lever_rate"`
		BuyLimitValue  wireDecimal `json:"buy_limit_value"`
		SellLimitValue wireDecimal `json:"sell_limit_value"`
		MarkPrice      wireDecimal `json:"mark_price"`
		TradePartition *string     `json:"trade_partition"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("position limit record: %w", err)
	}
	strs := []struct {
		name string
		v    *string
		dst  *string
	}{
		{"symbol", w.Symbol, &p.Symbol}, {"contract_code", w.ContractCode, &p.ContractCode}, {"margin_mode", w.MarginMode, &p.MarginMode},
		{"pair", w.Pair, &p.Pair}, {"business_type", w.BusinessType, &p.BusinessType},
	}
	for _, f := range strs {
		if f.v == nil {
			return &MissingFieldError{Record: "position limit", Field: f.name}
		}
		*f.dst = *f.v
	}
	if w.ContractType == nil {
		return &MissingFieldError{Record: "position limit", Field: "contract_type"}
	}
	p.ContractType = ContractType(*w.ContractType)
	decs := []struct {
		name string
		v    wireDecimal
		dst  *decimal.Decimal
	}{
		{"buy_limit", w.BuyLimit, &p.BuyLimit}, {"sell_limit", w.SellLimit, &p.SellLimit}, {"buy_limit_value", w.BuyLimitValue, &p.BuyLimitValue},
		{"sell_limit_value", w.SellLimitValue, &p.SellLimitValue}, {"mark_price", w.MarkPrice, &p.MarkPrice},
	}
	for _, f := range decs {
		if !f.v.Valid {
			return &MissingFieldError{Record: "position limit", Field: f.name}
		}
		*f.dst = f.v.Decimal
	}
	if !w.LeverRate.Valid {
		return &MissingFieldError{Record: "position limit", Field: "lever_rate"}
	}
	if !isLeverRate(w.LeverRate.Decimal) {
		return fmt.Errorf("position limit record: lever_rate %s is not a leverage", w.LeverRate.Decimal)
	}
	p.LeverRate = int(w.LeverRate.Decimal.IntPart())
	if w.TradePartition != nil {
		p.TradePartition = *w.TradePartition
	}
	return nil
}

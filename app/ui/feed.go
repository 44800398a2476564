package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Contract is a contract the server offers (GET /api/v1/contracts).
type Contract struct {
	Code          string          `json:"contract_code"`
	FaceValue     decimal.Decimal `json:"face_value"`
	PriceDecimals int32           `json:"price_decimals"`
}

// errUnknownContract is the venue saying it does not list a contract.
var errUnknownContract = errors.New("the venue does not list this contract")

// kline is an answer of the KLine path.
type kline struct {
	candles []venueapi.Candle
	stale   bool
}

// fetchKLine asks the server's KLine path (the venue's own path, unsigned)
// for candles, decoded exactly.
func fetchKLine(ctx context.Context, q venueapi.KLineQuery) (kline, error) {
	if err := q.Validate(); err != nil {
		return kline{}, err
	}
	a, err := fetchText(ctx, "GET", origin()+venueapi.PathKLine+"?"+q.Values().Encode(), "", nil)
	if err != nil {
		return kline{}, fmt.Errorf("loading %s candles: %w", q.ContractCode, err)
	}
	return readKLine(q, a.status, a.body)
}

// errNoFirstPaint: the first paint holds no answer for the view.
var errNoFirstPaint = errors.New("no first-paint answer")

// firstPaintKLine decodes the answer that the page's first-paint script
// (web/chart-boot.js) fetched for view ("contract|period"), once, so that
// the app does not ask the server again for what it has just sent.
func firstPaintKLine(q venueapi.KLineQuery, view string) (kline, error) {
	b := app.Window().Get("riskchartBoot")
	if !b.Truthy() || b.Get("view").String() != view || b.Get("answer").Type() != app.TypeString {
		return kline{}, errNoFirstPaint
	}
	body := b.Get("answer").String()
	b.Set("answer", nil)
	return readKLine(q, 200, body)
}

// readKLine decodes an answer of the KLine path.
func readKLine(q venueapi.KLineQuery, status int, body string) (kline, error) {
	var env venueapi.KLineEnvelope
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		return kline{}, fmt.Errorf("loading %s candles: the server answered HTTP %d with something unreadable", q.ContractCode, status)
	}
	if env.Status != venueapi.StatusOK {
		if env.ErrCode == venueapi.CodeNoSuchContract {
			return kline{}, errUnknownContract
		}
		return kline{}, fmt.Errorf("loading %s candles: %s", q.ContractCode, env.ErrMsg)
	}
	return kline{candles: env.Data, stale: env.Stale}, nil
}

// fetchContracts lists the contracts the server offers.
func fetchContracts(ctx context.Context) ([]Contract, error) {
	a, err := fetchText(ctx, "GET", origin()+"/api/v1/contracts", "", nil)
	if err != nil {
		return nil, err
	}
	var v struct {
		Data []Contract `json:"data"`
	}
	if err := json.Unmarshal([]byte(a.body), &v); err != nil {
		return nil, fmt.Errorf("reading the contract list: %w", err)
	}
	return v.Data, nil
}

// origin is the page's scheme and host.
func origin() string {
	u := app.Window().URL()
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

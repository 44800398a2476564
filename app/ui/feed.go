package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/venueapi"
)

// fetchKLine asks the server's KLine path (the venue's own path, unsigned)
// for candles, and decodes them exactly.
func fetchKLine(ctx context.Context, q venueapi.KLineQuery) (*venueapi.KLineEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	u := origin() + venueapi.PathKLine + "?" + q.Values().Encode()
	var env venueapi.KLineEnvelope
	if err := getJSON(ctx, u, &env); err != nil {
		return nil, fmt.Errorf("loading %s %s candles: %w", q.ContractCode, q.Period, err)
	}
	if env.Status != venueapi.StatusOK {
		return &env, fmt.Errorf("loading %s %s candles: %s (code %d)", q.ContractCode, q.Period, env.ErrMsg, env.ErrCode)
	}
	return &env, nil
}

// origin is the page's scheme and host: Go's HTTP client needs absolute URLs.
func origin() string {
	u := app.Window().URL()
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

func getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return err
	}
	// Error answers carry the venue's envelope too: decode them either way.
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("HTTP %d: unreadable answer: %w", res.StatusCode, err)
	}
	return nil
}

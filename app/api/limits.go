package api

import (
	"context"
	"fmt"
	"time"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// FetchLimits asks the server's position-limit path for the account's
// limits; header is Headers' answer.
func FetchLimits(ctx context.Context, q venueapi.LimitQuery, header map[string]string) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	a, err := browser.Fetch(ctx, methodPost, browser.Origin()+venueapi.PathPositionLimit, string(q.AppendJSON(nil)), header)
	if err != nil {
		return nil, fmt.Errorf("fetching position limits: %w", err)
	}
	env, err := ReadLimits(a.Status, a.Body)
	return env, withRetryAfter(err, a.Status, a.Header, time.Now())
}

// ReadLimits decodes an answer of the position-limit path, given with its
// HTTP status. The envelope decides, not the status (see ReadKLine).
func ReadLimits(status int, body string) (*venueapi.LimitEnvelope, error) {
	env, jsonErr := venueapi.DecodeLimits([]byte(body))
	if err := refusal(status, env.ErrCode, env.ErrMsg); err != nil {
		return nil, err
	}
	readable := jsonErr == nil && (env.Status == venueapi.StatusOK || env.Status == venueapi.StatusError)
	if err := envelopeError("fetching position limits", status, readable, env.Status == venueapi.StatusOK, env.ErrCode, env.ErrMsg); err != nil {
		return nil, err
	}
	return &env, nil
}

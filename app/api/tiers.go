package api

import (
	"context"
	"fmt"
	"time"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// TiersPath is the path and query FetchTiers asks for a swap's tiers by; a
// page that reads them before the app runs names the same.
func TiersPath(code string) (string, error) {
	q := venueapi.TierQuery{ContractCode: code}
	if err := q.Validate(); err != nil {
		return "", err
	}
	return venueapi.PathTiers + "?" + q.Values().Encode(), nil
}

// pageTiers is the window's property under which the chart page's head
// script (web/chart-answer.js) leaves the tiers it read for the panel.
const pageTiers = "riskchartTiers"

// FetchTiers asks the server's tier path (signed by the server) for a
// swap's tiers; header is Headers' answer. When the chart page has read
// them already (web/chart-answer.js, from the URL the server names in the
// page's head), it takes that answer instead, once (docs/startup.md,
// "The tiers read by the page"); a read that got no answer is asked for
// again.
func FetchTiers(ctx context.Context, code string, header map[string]string) (*venueapi.TierEnvelope, error) {
	path, err := TiersPath(code)
	if err != nil {
		return nil, err
	}
	a, err := readTiers(ctx, path, header)
	if err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", code, err)
	}
	env, err := ReadTiers(code, a.Status, a.Body)
	return env, withRetryAfter(err, a.Status, a.Header, time.Now())
}

// TakePageTiers returns, once, the tiers of code that the chart page read
// before the app ran (web/chart-answer.js), when that answer is in already
// and holds them, so that the risk panel's first render shows them, as it
// does tiers the server wrote into the page. ok is false otherwise, and a
// read still under way, or one whose answer is an error, is left to
// FetchTiers, which awaits it or says what is wrong. header is Headers'
// answer, as FetchTiers'.
func TakePageTiers(code string, header map[string]string) (env *venueapi.TierEnvelope, ok bool) {
	path, err := TiersPath(code)
	if err != nil || !pageReads(header) {
		return nil, false
	}
	a, ok := browser.PageAnswerIn(pageTiers, path)
	if !ok {
		return nil, false
	}
	if env, err = ReadTiers(code, a.Status, a.Body); err != nil {
		return nil, false
	}
	browser.TakePageAnswer(pageTiers, path)
	return env, true
}

// readTiers is the answer to path: the chart page's own read of it, taken
// once, when the page made one and it got an answer; otherwise a fetch.
func readTiers(ctx context.Context, path string, header map[string]string) (browser.Answer, error) {
	if pageReads(header) {
		if read, ok := browser.TakePageAnswer(pageTiers, path); ok {
			if a, err := browser.AwaitAnswer(ctx, read); err == nil || ctx.Err() != nil {
				return a, err
			}
		}
	}
	return browser.Fetch(ctx, methodGet, browser.Origin()+path, "", header)
}

// pageReads reports whether a call with header may take the page's read:
// that read carries no embed link, so an embed's panel, whose calls carry
// its link (Headers), has none to take.
func pageReads(header map[string]string) bool { return len(header) == 0 }

// ReadTiers decodes an answer of the tier path for code, given with its HTTP
// status. The envelope decides, not the status (see ReadKLine).
func ReadTiers(code string, status int, body string) (*venueapi.TierEnvelope, error) {
	env, jsonErr := venueapi.DecodeTiers([]byte(body)) // in one pass when it can: the app reads the page's tiers in its first run
	if err := refusal(status, env.Code, env.Message); err != nil {
		return nil, err
	}
	if err := envelopeError("fetching the tiers of "+code, status, jsonErr == nil && env.Code != 0, env.Code == venueapi.CodeOK, env.Code, env.Message); err != nil {
		return nil, err
	}
	return &env, nil
}

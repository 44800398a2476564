package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// PathContracts is the server's list of the contracts it offers; pages
// preload it by this name.
const PathContracts = venueapi.PathContracts

// FetchContracts lists the contracts the server offers.
func FetchContracts(ctx context.Context) ([]venueapi.Offer, error) {
	a, err := browser.Fetch(ctx, "GET", browser.Origin()+PathContracts, "", nil)
	if err != nil {
		return nil, err
	}
	return readContractsAnswer(a.Status, a.Body)
}

// readContractsAnswer reads a fetched answer of the contract path: a list
// comes with 200 alone, and any other status (a host refused, a proxy's
// error page, even in JSON) is a failure to try again, not an empty list.
func readContractsAnswer(status int, body string) ([]venueapi.Offer, error) {
	if status != 200 {
		return nil, &AnswerError{Doing: "loading the contract list", Status: status, Unreadable: true}
	}
	return ReadContracts(body)
}

// ReadContracts reads the contract path's answer, fetched or carried by the
// page (boot.ContractsID). The server offers a contract at least, so a list
// without one is not its answer.
func ReadContracts(body string) ([]venueapi.Offer, error) {
	offers, err := venueapi.DecodeContracts([]byte(body)) // in one pass when it can: the app reads it in its first run
	if err != nil {
		return nil, fmt.Errorf("reading the contract list: %w", err)
	}
	if len(offers) == 0 {
		return nil, errors.New("reading the contract list: it lists no contract")
	}
	return offers, nil
}

package api

import (
	"context"
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
	return ReadContracts(a.Body)
}

// ReadContracts reads the contract path's answer, fetched or carried by the
// page (boot.ContractsID).
func ReadContracts(body string) ([]venueapi.Offer, error) {
	offers, err := venueapi.DecodeContracts([]byte(body)) // in one pass when it can: the app reads it in its first run
	if err != nil {
		return nil, fmt.Errorf("reading the contract list: %w", err)
	}
	return offers, nil
}

package api

import (
	"errors"
	"fmt"
	"testing"

	"github.com/riskchart/riskchart/venueapi"
)

func TestRefusal(t *testing.T) {
	tests := []struct {
		status, code int
		refused      bool
	}{
		{401, venueapi.CodeForbidden, true},       // a viewer without a token
		{403, venueapi.CodeForbidden, true},       // no server key, or an embed without a link
		{502, venueapi.CodeForbidden, true},       // the venue refused the server's key
		{200, venueapi.CodeForbidden, true},       // the venue's own refusal, relayed as is
		{429, venueapi.CodeRateLimited, false},    // busy is not refused
		{400, venueapi.CodeInvalidInput, false},   // bad input is not refused
		{404, venueapi.CodeNoSuchContract, false}, // nor an unknown contract
		{200, venueapi.CodeOK, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("HTTP %d code %d", tt.status, tt.code), func(t *testing.T) {
			err := refusal(tt.status, tt.code, "because")
			if (err != nil) != tt.refused || (err != nil && !errors.Is(err, ErrNoAccess)) {
				t.Fatalf("refusal %v, want refused: %v", err, tt.refused)
			}
		})
	}
}

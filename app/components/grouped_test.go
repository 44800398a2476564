package components

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestGroupedWritesTheVenuesDigitsGrouped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0"},
		{"999", "999"},
		{"1000", "1,000"},
		{"1234567.50", "1,234,567.5"},
		{"-98765.4321", "-98,765.4321"},
		{"0.000001", "0.000001"},
		{"120000000000000000000000.25", "120,000,000,000,000,000,000,000.25"}, // beyond 18 digits: decimal's own String
		{"5e3", "5,000"},
	} {
		if got := grouped(decimal.RequireFromString(tc.in)); got != tc.want {
			t.Errorf("grouped(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

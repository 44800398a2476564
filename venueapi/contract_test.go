package venueapi

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseContractCodeTellsTheThreeShapesApart(t *testing.T) {
	for _, tt := range []struct {
		code string
		kind ContractKind
		typ  ContractType
		ok   bool
	}{
		{"BTC-USDT", KindSwap, TypeSwap, true},
		{"1000PEPE-USDT", KindSwap, TypeSwap, true},
		{"BTC-USDT-261225", KindFuture, "", true},
		{"BTC-USDT-CW", KindTypeCode, TypeThisWeek, true},
		{"BTC-USDT-NW", KindTypeCode, TypeNextWeek, true},
		{"BTC-USDT-CQ", KindTypeCode, TypeQuarter, true},
		{"BTC-USDT-NQ", KindTypeCode, TypeNextQuarter, true},
		{"BTC-USDT-261332", 0, "", false}, // no 32nd of a 13th month
		{"BTC-USDT-XX", 0, "", false},
		{"btc-usdt", 0, "", false},
		{"BTC_USDT", 0, "", false},
		{"BTC--USDT", 0, "", false},
		{"BTC-USDT-CQ-1", 0, "", false},
		{"", 0, "", false},
	} {
		c, err := ParseContractCode(tt.code)
		if (err == nil) != tt.ok || (tt.ok && (c.Kind != tt.kind || c.Type != tt.typ)) {
			t.Errorf("ParseContractCode(%q) = %+v, %v", tt.code, c, err)
		}
	}
}

func TestAContractCodeCarriesItsParts(t *testing.T) {
	c, err := ParseContractCode("ETH-USDT-260327")
	if err != nil {
		t.Fatal(err)
	}
	if c.Pair() != "ETH-USDT" || c.Base != "ETH" || !c.Delivery.Equal(time.Date(2026, 3, 27, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("parsed %+v", c)
	}
	for _, typ := range []ContractType{TypeThisWeek, TypeNextWeek, TypeQuarter, TypeNextQuarter} {
		c, err := ParseContractCode("BTC-USDT-" + TypeCodeSuffix(typ))
		if err != nil || c.Type != typ {
			t.Errorf("the suffix of %s parses as %+v, %v", typ, c, err)
		}
	}
	if TypeCodeSuffix(TypeSwap) != "" {
		t.Error("a swap has a contract-type suffix")
	}
}

func TestMalformedContractCodesNameTheParameterAndTheRule(t *testing.T) {
	for _, code := range []string{"", "BTC", strings.Repeat("A", 20) + "-" + strings.Repeat("B", 20), "BTC-USDT-2612251", "BTC-USDT-261131", "BTC-usdt", "BTC-USDT "} {
		_, err := ParseContractCode(code)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "contract_code" || pe.Rule == "" {
			t.Errorf("%q: error %v", code, err)
		}
	}
	for _, pair := range []string{"BTC", "BTC-", "-USDT", "BTC-USDT-X", "btc-usdt"} {
		if _, _, err := ParsePair("pair", pair); err == nil {
			t.Errorf("the pair %q parses", pair)
		}
	}
}

// FuzzParseContractCode: nothing panics, and an accepted code is upper-case
// letters and digits in one of the three shapes.
func FuzzParseContractCode(f *testing.F) {
	for _, s := range []string{"BTC-USDT", "BTC-USDT-261225", "ETH-USDT-CW", "a-b", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		c, err := ParseContractCode(code)
		if err != nil {
			return
		}
		parts := strings.Split(code, "-")
		if len(parts) < 2 || len(parts) > 3 || c.Code != code || c.Pair() != parts[0]+"-"+parts[1] || !upperAlnum(strings.ReplaceAll(code, "-", "")) {
			t.Fatalf("%q accepted as %+v", code, c)
		}
		if (c.Kind == KindFuture) != (len(parts) == 3 && c.Type == "") || (c.Kind == KindFuture && c.Delivery.Format("060102") != parts[2]) {
			t.Fatalf("%q accepted as %+v", code, c)
		}
	})
}

// FuzzContractCodePatternAgreesWithParseContractCode: the pattern handed to
// the first-paint script accepts what ParseContractCode accepts, and only
// that but for dates that do not exist.
func FuzzContractCodePatternAgreesWithParseContractCode(f *testing.F) {
	for _, s := range []string{"BTC-USDT", "BTC-USDT-261225", "BTC-USDT-261332", "ETH-USDT-CW", "ETH-USDT-XW", "a-b", "--", "BTC-USDT-", strings.Repeat("A", 37) + "-BC"} {
		f.Add(s)
	}
	pattern := regexp.MustCompile(ContractCodePattern)
	f.Fuzz(func(t *testing.T, code string) {
		_, err := ParseContractCode(code)
		matches := pattern.MatchString(code) && len(code) <= ContractCodeMaxLen
		if err == nil && !matches {
			t.Fatalf("ParseContractCode accepts %q, the pattern does not", code)
		}
		if err != nil && matches && !strings.Contains(err.Error(), "real date") {
			t.Fatalf("the pattern accepts %q, ParseContractCode does not: %v", code, err)
		}
	})
}

func TestLastDeliveryIsTheLatestFriday0800UTCAtOrBefore(t *testing.T) {
	friday := time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		at   time.Time
		want time.Time
	}{
		{friday, friday},
		{friday.Add(-time.Second), friday.AddDate(0, 0, -7)},
		{friday.Add(time.Second), friday},
		{friday.AddDate(0, 0, 6), friday}, // Thursday
		{friday.AddDate(0, 0, 7).Add(-time.Nanosecond), friday},
		{friday.In(time.FixedZone("UTC+9", 9*3600)), friday},                                          // the same instant in another zone
		{time.Date(2027, 1, 1, 7, 59, 0, 0, time.UTC), time.Date(2026, 12, 25, 8, 0, 0, 0, time.UTC)}, // across a year
	}
	for _, tt := range tests {
		if got := LastDelivery(tt.at); !got.Equal(tt.want) {
			t.Errorf("LastDelivery(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}

func TestIsTypeCodeAgreesWithParseContractCode(t *testing.T) {
	for _, code := range []string{"BTC-USDT", "BTC-USDT-CW", "BTC-USDT-NW", "BTC-USDT-CQ", "BTC-USDT-NQ", "BTC-USDT-261225", "CW-USDT", "A1-B2-NQ"} {
		c, err := ParseContractCode(code)
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		if got, want := IsTypeCode(code), c.Kind == KindTypeCode; got != want {
			t.Errorf("IsTypeCode(%q) = %v, want %v", code, got, want)
		}
	}
}

// The gateway parses a contract code for every request it answers.
func TestParsingAContractCodeAllocatesNothing(t *testing.T) {
	for _, code := range []string{"BTC-USDT", "ETH-USDT-CW", "BTC-USDT-261225"} {
		if n := testing.AllocsPerRun(100, func() { ParseContractCode(code) }); n != 0 {
			t.Errorf("ParseContractCode(%q): %v allocations; want 0", code, n)
		}
	}
}

package venueapi

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

func TestAppendDecimalWritesWhatStringWrites(t *testing.T) {
	for _, d := range []decimal.Decimal{
		decimal.Zero, decimal.New(0, -3), decimal.New(5, -1), decimal.New(-5, -1), decimal.New(950000, -1), decimal.New(1000, -3),
		decimal.New(1500, -3), decimal.New(7, -18), decimal.New(123, -20), decimal.New(42, 3), decimal.New(math.MaxInt64, -4),
		decimal.New(math.MinInt64, -2), decimal.RequireFromString("123456789012345678901234.5"), decimal.New(-100, 0),
	} {
		if got, want := string(AppendDecimal(nil, d)), d.String(); got != want {
			t.Errorf("%s: wrote %q", want, got)
		}
	}
}

func FuzzAppendDecimalWritesWhatStringWrites(f *testing.F) {
	f.Add(int64(950000), int32(-1))
	f.Add(int64(-1), int32(-18))
	f.Add(int64(0), int32(0))
	f.Fuzz(func(t *testing.T, c int64, exp int32) {
		d := decimal.New(c, exp%40)
		if got, want := string(AppendDecimal(nil, d)), d.String(); got != want {
			t.Fatalf("%s: wrote %q", want, got)
		}
	})
}

func BenchmarkAppendDecimal(b *testing.B) {
	d := decimal.New(9512345, -1)
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendDecimal(buf[:0], d)
	}
}

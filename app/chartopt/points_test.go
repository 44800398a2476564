package chartopt

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

func TestAppendPointsGivesIndexAndValuePairs(t *testing.T) {
	values := []decimal.NullDecimal{
		{},
		{Decimal: decimal.RequireFromString("99518.270000000000"), Valid: true},
		{Decimal: decimal.RequireFromString("-0.000123456789012"), Valid: true},
		{Decimal: decimal.RequireFromString("12345678901234567890.5"), Valid: true}, // too long for a machine word
		{Decimal: decimal.New(42, 3), Valid: true},
	}
	tests := []struct {
		name string
		from int
		want []float64
	}{
		{"every value, NaN where the study has too little history", 0,
			[]float64{0, math.NaN(), 1, 99518.27, 2, -0.000123456789012, 3, 12345678901234567890.5, 4, 42000}},
		{"the tail from an index", 3, []float64{3, 12345678901234567890.5, 4, 42000}},
		{"nothing past the end", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendPoints([]byte{7}, values, tt.from)
			if b[0] != 7 || (len(b)-1)%PointSize != 0 || (len(b)-1)/8 != len(tt.want) {
				t.Fatalf("%d bytes after the one given, want %d float64s", len(b)-1, len(tt.want))
			}
			for i, want := range tt.want {
				got := math.Float64frombits(binary.LittleEndian.Uint64(b[1+8*i:]))
				if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && math.Abs(got-want) > math.Abs(want)*1e-15) {
					t.Errorf("float64 %d = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func BenchmarkAppendPoints(b *testing.B) {
	values := make([]decimal.NullDecimal, 2300)
	for i := range values {
		values[i] = decimal.NullDecimal{Decimal: decimal.New(99518270000000000+int64(i)*1_000_000_007, -12), Valid: true}
	}
	buf := make([]byte, 0, PointSize*len(values))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendPoints(buf[:0], values, 0)
	}
}

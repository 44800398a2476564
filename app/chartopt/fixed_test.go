package chartopt

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestAppendFixedWritesWhatStringFixedWrites(t *testing.T) {
	tests := []struct {
		value  string
		places int32
	}{
		{"0", 2}, {"1", 2}, {"-1", 3}, {"99518.27", 1}, {"99518.25", 1}, {"-99518.25", 1},
		{"0.004", 2}, {"-0.004", 2}, {"0.005", 2}, {"-0.005", 2}, {"0.000000000001", 8},
		{"0.00000000049999", 9}, {"12345.678901234567", 4}, {"-12345.678901234567", 12},
		{"123456789012345678", 2}, {"1234567890123456789", 2}, {"0.5", 18}, {"7.125", 2},
		{"1e-30", 2}, {"-9.999999999995", 11}, {"42", 0}, {"1.23456789012345678901234", 3},
	}
	for _, tt := range tests {
		d := decimal.RequireFromString(tt.value)
		if got, want := string(appendFixed(nil, d, tt.places)), d.StringFixed(tt.places); got != want {
			t.Errorf("appendFixed(%s, %d) = %s, want %s", tt.value, tt.places, got, want)
		}
	}
}

func FuzzAppendFixed(f *testing.F) {
	f.Add(int64(99518270), int32(-3), int32(2))
	f.Add(int64(-5), int32(-3), int32(2))
	f.Fuzz(func(t *testing.T, c int64, exp, places int32) {
		if exp < -40 || exp > 40 || places < -4 || places > 24 {
			return
		}
		d := decimal.New(c, exp)
		if got, want := string(appendFixed(nil, d, places)), d.StringFixed(places); got != want {
			t.Errorf("appendFixed(%s, %d) = %s, want %s", d, places, got, want)
		}
	})
}

func BenchmarkAppendFixed(b *testing.B) {
	d := decimal.New(9951827123456789, -12)
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf = appendFixed(buf[:0], d, 3)
	}
}

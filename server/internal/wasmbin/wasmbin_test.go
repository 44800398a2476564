package wasmbin

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestLEB128RoundTrips(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 127, 128, 300, 1<<32 - 1, math.MaxUint64} {
		r := &Reader{B: AppendUleb(nil, v)}
		if got, err := r.Uleb(); err != nil || got != v || !r.Done() {
			t.Errorf("uleb %d: read %d, %v, done %v", v, got, err, r.Done())
		}
	}
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 1 << 20, math.MaxInt32, math.MinInt32} {
		r := &Reader{B: AppendSleb(nil, int64(v))}
		if got, err := r.Sleb32(); err != nil || got != v || !r.Done() {
			t.Errorf("sleb %d: read %d, %v, done %v", v, got, err, r.Done())
		}
	}
}

func TestReadsRefuseWhatDoesNotFit(t *testing.T) {
	tests := []struct {
		name string
		read func(r *Reader) error
		in   []byte
	}{
		{"a byte past the end", func(r *Reader) error { _, err := r.Byte(); return err }, nil},
		{"bytes past the end", func(r *Reader) error { _, err := r.Bytes(3); return err }, []byte{1, 2}},
		{"a uleb cut short", func(r *Reader) error { _, err := r.Uleb(); return err }, []byte{0x80}},
		{"a uleb over 64 bits", func(r *Reader) error { _, err := r.Uleb(); return err }, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}},
		{"an i32 past 32 bits", func(r *Reader) error { _, err := r.Sleb32(); return err }, AppendSleb(nil, math.MaxInt32+1)},
		{"an i32 of six bytes", func(r *Reader) error { _, err := r.Sleb32(); return err }, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0}},
		{"a name longer than the module", func(r *Reader) error { _, err := r.Name(); return err }, []byte{5, 'a'}},
		{"limits without their minimum", func(r *Reader) error { return r.Limits() }, []byte{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.read(&Reader{B: tt.in}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := (&Reader{}).Byte(); !errors.Is(err, ErrShort) {
		t.Errorf("an empty reader: %v, want ErrShort", err)
	}
}

func TestNameAndLimits(t *testing.T) {
	r := &Reader{B: []byte{3, 'r', 'u', 'n', 1, 2, 9, 0, 7}}
	name, err := r.Name()
	if err != nil || name != "run" {
		t.Fatalf("name %q, %v", name, err)
	}
	if err := r.Limits(); err != nil || r.Off != 7 { // flags 1: minimum 2, maximum 9
		t.Fatalf("limits with a maximum: %v at %d", err, r.Off)
	}
	if err := r.Limits(); err != nil || !r.Done() { // flags 0: minimum 7
		t.Fatalf("limits without one: %v at %d", err, r.Off)
	}
}

func TestSectionsInOrderThenTheErrorThatStopsThem(t *testing.T) {
	module := []byte(Header + "\x01\x02ab" + "\x00\x00" + "\x0b\x05xy")
	var got []string
	var stop error
	for sec, err := range Sections(module) {
		if err != nil {
			stop = err
			break
		}
		got = append(got, fmt.Sprintf("%d:%s:%q", sec.ID, sec.Body, sec.Raw))
	}
	if want := []string{`1:ab:"\x01\x02ab"`, `0::"\x00\x00"`}; !slices.Equal(got, want) {
		t.Errorf("sections %q, want %q", got, want)
	}
	if !errors.Is(stop, ErrShort) {
		t.Errorf("a section cut short: %v, want ErrShort", stop)
	}
}

// The tenth byte of a 64-bit LEB128 holds bit 63 alone: any other bit set
// there is a value past 64 bits, which must be refused, not dropped.
func TestUlebRefusesBitsPast64InItsTenthByte(t *testing.T) {
	for _, in := range [][]byte{
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, // 2^64 + 2^63 - 1
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7e}, // bits 64 to 69
		{0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, // 2^64 + 1, read as 1
	} {
		r := &Reader{B: in}
		if v, err := r.Uleb(); err == nil {
			t.Errorf("uleb % x: read %d, want an error", in, v)
		}
	}
	r := &Reader{B: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}}
	if v, err := r.Uleb(); err != nil || v != 1<<63 {
		t.Errorf("uleb of 2^63 in ten bytes: %d, %v", v, err)
	}
}

// Package wasmbin reads the encodings of the WebAssembly binary format that
// the build tools need (server/cmd/wasmsize, server/cmd/wasmdata): bytes,
// LEB128 integers, names and limits, from a module held in memory.
package wasmbin

import (
	"errors"
	"fmt"
	"iter"
)

// Header is the start of every module of version 1.
const Header = "\x00asm\x01\x00\x00\x00"

// ErrShort says the module ended inside what was being read.
var ErrShort = errors.New("the module ends early")

// Reader reads B from Off on.
type Reader struct {
	B   []byte
	Off int
}

// Section is one section of a module: its id, the whole section as the
// module holds it, and its contents.
type Section struct {
	ID        byte
	Raw, Body []byte
}

// Sections yields the sections of module after its 8-byte header, which
// the caller checks, in order; a section that cannot be read comes as an
// error, the last thing yielded.
func Sections(module []byte) iter.Seq2[Section, error] {
	return func(yield func(Section, error) bool) {
		r := &Reader{B: module, Off: 8}
		for !r.Done() {
			start := r.Off
			id, _ := r.Byte()
			size, err := r.Uleb()
			if err != nil {
				yield(Section{}, fmt.Errorf("section %d: %w", id, err))
				return
			}
			body, err := r.Bytes(int(min(size, uint64(len(module)))))
			if err != nil {
				yield(Section{}, fmt.Errorf("section %d: %w", id, err))
				return
			}
			if !yield(Section{ID: id, Raw: module[start:r.Off], Body: body}, nil) {
				return
			}
		}
	}
}

// Done reports whether everything has been read.
func (r *Reader) Done() bool { return r.Off >= len(r.B) }

// Byte reads one byte.
func (r *Reader) Byte() (byte, error) {
	if r.Off >= len(r.B) {
		return 0, ErrShort
	}
	r.Off++
	return r.B[r.Off-1], nil
}

// Bytes reads the next n bytes, without copying them.
func (r *Reader) Bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.B)-r.Off {
		return nil, ErrShort
	}
	r.Off += n
	return r.B[r.Off-n : r.Off], nil
}

// Uleb reads an unsigned LEB128 integer of up to 64 bits.
func (r *Reader) Uleb() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.Byte()
		if err != nil {
			return 0, err
		}
		if shift == 63 && c&0x7e != 0 { // the tenth byte holds bit 63 alone
			return 0, errors.New("an integer longer than 64 bits")
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("an integer longer than 64 bits")
}

// Sleb32 reads a signed LEB128 integer that fits 32 bits, as i32.const holds.
func (r *Reader) Sleb32() (int32, error) {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.Byte()
		if err != nil {
			return 0, err
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			if v < -1<<31 || v > 1<<31-1 {
				return 0, errors.New("an i32 out of range")
			}
			return int32(v), nil
		}
	}
	return 0, errors.New("an i32 longer than five bytes")
}

// Name reads a name: its length, then its UTF-8 bytes.
func (r *Reader) Name() (string, error) {
	n, err := r.Uleb()
	if err != nil {
		return "", err
	}
	b, err := r.Bytes(int(min(n, uint64(len(r.B)))))
	return string(b), err
}

// Limits reads the limits of a table or a memory: flags, a minimum and,
// when flag 1 is set, a maximum.
func (r *Reader) Limits() error {
	flags, err := r.Byte()
	if err != nil {
		return err
	}
	if _, err := r.Uleb(); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.Uleb()
	}
	return err
}

// AppendUleb appends v as unsigned LEB128.
func AppendUleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendSleb appends v as signed LEB128.
func AppendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

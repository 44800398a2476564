// Command wasmdata rewrites the data section of a WebAssembly module built by
// Go, in place: it merges the data segments that lie at most -gap bytes
// apart into one, writing the zeros between them.
//
//	go run ./server/cmd/wasmdata web/app.wasm
//
// Go's linker starts a new active segment after every run of eight zero
// bytes or more, so that it need not write the zeros: app.wasm had 92,951
// segments for 2.3 MB of data, with 0.74 MB of segment headers (an offset
// and a length each), which compress poorly. A browser copies each segment
// into memory when it instantiates the module. Merged, the module is larger
// raw and smaller on the wire, and has a few dozen segments
// (docs/startup.md, "Go's data segments, merged").
//
// The memory image the segments write is the same before and after; the
// command checks it, and leaves every other section as it was.
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/riskchart/riskchart/server/internal/cmdline"
	"github.com/riskchart/riskchart/server/internal/wasmbin"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmdata:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wasmdata", flag.ContinueOnError)
	gap := fs.Int("gap", 64, "merge segments at most this many bytes apart (0 or more)")
	if err := fs.Parse(args); err != nil {
		return cmdline.Result(err)
	}
	if *gap < 0 {
		return fmt.Errorf("-gap is %d: it must be 0 or more", *gap)
	}
	if fs.NArg() == 0 {
		return errors.New("want the modules to rewrite as arguments")
	}
	for _, path := range fs.Args() {
		in, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		out, st, err := mergeData(in, *gap)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		// In place: the Makefile has the linker write a temporary name and
		// renames it once this is done, so a module cut short is never taken
		// as built.
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fmt.Fprintf(stdout, "%s: %d data segments → %d, %d bytes → %d\n", path, st.before, st.after, len(in), len(out))
	}
	return nil
}

// stats are the segment counts before and after a merge.
type stats struct{ before, after int }

const (
	sectionData      = 11
	sectionDataCount = 12
	opI32Const       = 0x41
	opEnd            = 0x0b

	// maxImage bounds the memory image the merge is checked against.
	maxImage = 1 << 30
)

// segment is an active data segment of memory 0 at a constant offset.
type segment struct {
	offset uint32
	data   []byte
}

// mergeData returns module with the data segments at most gap bytes apart
// merged. It fails, and module is to be left as it is, on anything but
// active segments of memory 0 at i32.const offsets that do not overlap.
func mergeData(module []byte, gap int) ([]byte, stats, error) {
	if len(module) < 8 || string(module[:8]) != wasmbin.Header {
		return nil, stats{}, errors.New("not a WebAssembly module of version 1")
	}
	var sections []wasmbin.Section
	data := -1
	for sec, err := range wasmbin.Sections(module) {
		if err != nil {
			return nil, stats{}, err
		}
		if sec.ID == sectionData {
			if data >= 0 {
				return nil, stats{}, errors.New("two data sections")
			}
			data = len(sections)
		}
		sections = append(sections, sec)
	}
	if data < 0 {
		return nil, stats{}, errors.New("no data section")
	}
	segs, err := readData(sections[data].Body)
	if err != nil {
		return nil, stats{}, fmt.Errorf("data section: %w", err)
	}
	merged, err := merge(segs, gap)
	if err != nil {
		return nil, stats{}, fmt.Errorf("data section: %w", err)
	}
	if len(merged) == 0 {
		return nil, stats{}, errors.New("the data section holds no segment")
	}
	if last := merged[len(merged)-1]; uint64(last.offset)+uint64(len(last.data)) > maxImage {
		return nil, stats{}, fmt.Errorf("data section: its data reaches past %d MiB, more than a Go module's", maxImage>>20)
	}
	if !bytes.Equal(image(segs), image(merged)) {
		return nil, stats{}, errors.New("the merged segments write another memory image") // a bug of merge
	}
	out := append(make([]byte, 0, len(module)+len(module)/4), module[:8]...)
	for _, sec := range sections {
		switch sec.ID {
		case sectionData:
			out = appendSection(out, sectionData, encodeData(merged))
		case sectionDataCount: // bulk memory's count of data segments
			out = appendSection(out, sectionDataCount, wasmbin.AppendUleb(nil, uint64(len(merged))))
		default:
			out = append(out, sec.Raw...)
		}
	}
	return out, stats{before: len(segs), after: len(merged)}, nil
}

// readData reads a data section's segments.
func readData(body []byte) ([]segment, error) {
	r := &wasmbin.Reader{B: body}
	n, err := r.Uleb()
	if err != nil {
		return nil, err
	}
	segs := make([]segment, 0, min(n, uint64(len(body))))
	for i := range n {
		flags, err := r.Uleb()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if flags != 0 {
			return nil, fmt.Errorf("segment %d has flags %d: only active segments of memory 0 are merged", i, flags)
		}
		op, err := r.Byte()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if op != opI32Const {
			return nil, fmt.Errorf("segment %d: its offset is not an i32.const", i)
		}
		off, err := r.Sleb32()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if end, err := r.Byte(); err != nil || end != opEnd {
			return nil, fmt.Errorf("segment %d: its offset is more than one i32.const", i)
		}
		size, err := r.Uleb()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		data, err := r.Bytes(int(size))
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if uint64(uint32(off))+size > 1<<32 {
			return nil, fmt.Errorf("segment %d ends past 4 GiB", i)
		}
		segs = append(segs, segment{offset: uint32(off), data: data})
	}
	if !r.Done() {
		return nil, fmt.Errorf("%d bytes after the last segment", len(body)-r.Off)
	}
	return segs, nil
}

// merge sorts segs by offset and joins those at most gap bytes apart. It
// fails on segments that overlap: their order would then matter.
func merge(segs []segment, gap int) ([]segment, error) {
	sorted := slices.Clone(segs)
	slices.SortStableFunc(sorted, func(a, b segment) int { return cmp.Compare(a.offset, b.offset) })
	var out []segment
	for _, s := range sorted {
		if n := len(out); n > 0 {
			last := &out[n-1]
			end := uint64(last.offset) + uint64(len(last.data))
			if uint64(s.offset) < end {
				return nil, fmt.Errorf("segments at %d and %d overlap", last.offset, s.offset)
			}
			if uint64(s.offset)-end <= uint64(gap) {
				last.data = append(last.data, make([]byte, uint64(s.offset)-end)...)
				last.data = append(last.data, s.data...)
				continue
			}
		}
		out = append(out, segment{offset: s.offset, data: slices.Clone(s.data)})
	}
	return out, nil
}

// image is the memory the segments write, applied in order, up to the end
// of the last one.
func image(segs []segment) []byte {
	var end uint64
	for _, s := range segs {
		end = max(end, uint64(s.offset)+uint64(len(s.data)))
	}
	mem := make([]byte, end)
	for _, s := range segs {
		copy(mem[s.offset:], s.data)
	}
	return mem
}

func encodeData(segs []segment) []byte {
	b := wasmbin.AppendUleb(nil, uint64(len(segs)))
	for _, s := range segs {
		b = append(b, 0, opI32Const)
		b = wasmbin.AppendSleb(b, int64(int32(s.offset)))
		b = append(b, opEnd)
		b = wasmbin.AppendUleb(b, uint64(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

func appendSection(b []byte, id byte, body []byte) []byte {
	b = append(b, id)
	b = wasmbin.AppendUleb(b, uint64(len(body)))
	return append(b, body...)
}

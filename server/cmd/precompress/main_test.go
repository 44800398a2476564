package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/riskchart/riskchart/server/internal/cmdtest"
)

func TestSiblingsDecompressToTheFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "app.wasm")
	raw := []byte(strings.Repeat("riskchart candles ", 5000))
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{f}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(io.Reader) (io.Reader, error){
		".br": func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		".gz": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
	}
	for ext, open := range readers {
		b, err := os.ReadFile(f + ext)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) >= len(raw)/10 {
			t.Errorf("%s is %d bytes of %d: not compressed", ext, len(b), len(raw))
		}
		r, err := open(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, raw) {
			t.Errorf("%s decompresses to %d bytes (%v), want the file's %d", ext, len(got), err, len(raw))
		}
	}
	if left, _ := filepath.Glob(f + ".*.tmp"); len(left) > 0 {
		t.Error("a temporary file is left")
	}
}

func TestAMissingFileIsNamed(t *testing.T) {
	err := run([]string{filepath.Join(t.TempDir(), "nope.wasm")}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "nope.wasm") {
		t.Fatalf("error %v, want one naming nope.wasm", err)
	}
	if err := run(nil, io.Discard, io.Discard); err == nil {
		t.Error("no error without files")
	}
}

func TestAskingForTheUsageIsNotAFailure(t *testing.T) {
	cmdtest.Usage(t, func(args []string) error { return run(args, io.Discard, io.Discard) })
	var usage strings.Builder
	if run([]string{"-h"}, io.Discard, &usage); !strings.Contains(usage.String(), "usage: precompress FILE...") {
		t.Errorf("run -h printed %q, want the usage", usage.String())
	}
}

// Two builds compressing the same file at once (two makes, or a make and
// an editor's) must each leave a whole sibling and neither fail: a shared
// temporary name lets one rename the file the other is still writing.
func TestConcurrentWritesOfOneSiblingEachLeaveItWhole(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "app.wasm.br")
	contents := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)}
	errs := make(chan error, 2*50)
	done := make(chan struct{})
	for _, b := range contents {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 50 {
				errs <- writeAtomic(name, b)
			}
		}()
	}
	<-done
	<-done
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
		t.Errorf("the sibling holds %d bytes, neither write's whole", len(got))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

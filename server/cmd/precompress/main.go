// Command precompress writes a brotli (.br, quality 11) and a gzip (.gz,
// best compression) sibling of each file it is given, which the server
// sends to browsers that accept them (server/internal/bundle). It is pure
// Go (github.com/andybalholm/brotli), so the build needs no package beyond
// the Go toolchain (docs/startup.md, "Brotli").
//
//	go run ./server/cmd/precompress web/app.wasm web/echarts.min.js
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/andybalholm/brotli"

	"github.com/riskchart/riskchart/server/internal/cmdline"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "precompress:", err)
		os.Exit(1)
	}
}

// run compresses the files args names. Asked for its usage (-h), it prints
// it and returns nil.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("precompress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), "usage: precompress FILE...") }
	if err := fs.Parse(args); err != nil {
		return cmdline.Result(err)
	}
	files := fs.Args()
	if len(files) == 0 {
		fs.Usage()
		return errors.New("want the files to compress as arguments")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f, err)
		}
		br, err := compress(raw, func(w io.Writer) (io.WriteCloser, error) {
			return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24}), nil
		})
		if err != nil {
			return fmt.Errorf("brotli of %s: %w", f, err)
		}
		gz, err := compress(raw, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.BestCompression) })
		if err != nil {
			return fmt.Errorf("gzip of %s: %w", f, err)
		}
		for ext, b := range map[string][]byte{".br": br, ".gz": gz} {
			if err := writeAtomic(f+ext, b); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "%s: %d bytes, gzip %d, brotli %d\n", f, len(raw), len(gz), len(br))
	}
	return nil
}

func compress(raw []byte, newWriter func(io.Writer) (io.WriteCloser, error)) ([]byte, error) {
	var buf bytes.Buffer
	w, err := newWriter(&buf)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes b to name through a temporary file of its own, so that
// a server reading web/ never sends half a file, and two builds writing name
// at once never rename each other's file half-written.
func writeAtomic(name string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644) // CreateTemp's 0600 would hide it from a server run as another user
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

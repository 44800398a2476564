package main

import (
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/cmdtest"
)

func TestIconsAreSquarePNGsOfTheirSize(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		size     int
		maskable bool
	}{{"icon-192.png", 192, false}, {"icon-512.png", 512, false}, {"icon-maskable-512.png", 512, true}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := write(path, draw(tt.size, tt.maskable)); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() != tt.size || b.Dy() != tt.size {
				t.Fatalf("%v, want %d×%d", b, tt.size, tt.size)
			}
		})
	}
}

// A maskable icon may be cut to any shape that keeps the central circle of
// 80 % of its width: every candle pixel must lie inside it.
func TestTheMaskableIconDrawsOnlyInsideTheSafeZone(t *testing.T) {
	const size = 512
	img := draw(size, true)
	radius := 0.4 * size
	drawn := 0
	for y := range size {
		for x := range size {
			if img.RGBAAt(x, y) == background {
				continue
			}
			drawn++
			dx, dy := float64(x)+0.5-size/2, float64(y)+0.5-size/2
			if d := math.Hypot(dx, dy); d > radius {
				t.Fatalf("pixel (%d,%d) is %.1f px from the centre, outside the %.1f px safe zone", x, y, d, radius)
			}
		}
	}
	if drawn < size*size/20 {
		t.Fatalf("only %d pixels drawn: the candles are missing", drawn)
	}
}

func TestWriteNamesTheFileItCannotCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "icon.png")
	if err := write(path, draw(16, false)); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
}

// run writes the three icons into the one directory it is given; -h prints
// the usage and is no failure; no directory, two, or a flag the command does
// not have is one.
func TestRunWritesTheIconsOrSaysHowToCallIt(t *testing.T) {
	cmdtest.Usage(t, func(args []string) error { return run(args, io.Discard) })
	dir := t.TempDir()
	if err := run([]string{dir}, io.Discard); err != nil {
		t.Fatalf("run %s: %v", dir, err)
	}
	for _, name := range []string{"icon-192.png", "icon-512.png", "icon-maskable-512.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var usage strings.Builder
	if run([]string{"-h"}, &usage); !strings.Contains(usage.String(), "usage: icons DIR") {
		t.Errorf("run -h printed %q, want the usage", usage.String())
	}
	for _, args := range [][]string{nil, {dir, dir}} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}

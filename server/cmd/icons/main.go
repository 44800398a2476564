// Command icons draws Riskchart's app icons as PNG files (192 px, 512 px and
// a 512 px maskable one with its safe zone), so that the build makes them
// rather than binaries being committed.
//
//	go run ./server/cmd/icons web
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"github.com/riskchart/riskchart/server/internal/cmdline"
)

var (
	background = color.RGBA{0x0b, 0x12, 0x20, 0xff}
	up         = color.RGBA{0x16, 0xa3, 0x4a, 0xff}
	down       = color.RGBA{0xdc, 0x26, 0x26, 0xff}
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "icons:", err)
		os.Exit(1)
	}
}

// run writes the icons into the directory args names. Asked for its usage
// (-h), it prints it and returns nil.
func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("icons", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), "usage: icons DIR") }
	if err := fs.Parse(args); err != nil {
		return cmdline.Result(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want one directory to write the icons into, got %d arguments", fs.NArg())
	}
	for _, ic := range []struct {
		name     string
		size     int
		maskable bool
	}{{"icon-192.png", 192, false}, {"icon-512.png", 512, false}, {"icon-maskable-512.png", 512, true}} {
		if err := write(filepath.Join(fs.Arg(0), ic.name), draw(ic.size, ic.maskable)); err != nil {
			return err
		}
	}
	return nil
}

// draw paints three candles on the dark background. A maskable icon keeps
// its drawing inside the central 80 % that every mask shape shows.
func draw(size int, maskable bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	fill(img, img.Bounds(), background)
	scale := float64(size) / 64
	if maskable {
		scale *= 0.8
	}
	off := (float64(size) - 64*scale) / 2
	r := func(x0, y0, x1, y1 float64) image.Rectangle {
		return image.Rect(int(off+x0*scale), int(off+y0*scale), int(off+x1*scale), int(off+y1*scale))
	}
	for _, c := range []struct {
		x, wickTop, wickBottom, top, bottom float64
		col                                 color.RGBA
	}{{18, 14, 46, 20, 38, up}, {32, 10, 52, 16, 42, down}, {46, 18, 50, 24, 40, up}} {
		fill(img, r(c.x-1, c.wickTop, c.x+1, c.wickBottom), c.col)
		fill(img, r(c.x-5, c.top, c.x+5, c.bottom), c.col)
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func write(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return f.Close()
}

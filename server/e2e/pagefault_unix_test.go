//go:build unix

package e2e

import (
	"slices"
	"syscall"
	"time"
)

// pageFaultMicros is what this host charges for a page of fresh memory, in
// µs: the median of three 8 MiB anonymous mappings, each touched once per
// page. A start-up reads app.wasm into tens of MB of fresh memory, so a
// host where this is dear (14.5 µs on one virtual machine, against well
// under 1 µs on most) moves the app's start more than the plain page's:
// the bench reports it beside the ratios (docs/startup.md, "Reading
// app.wasm from the cache").
func pageFaultMicros() float64 {
	const size, page = 8 << 20, 4096
	var runs []float64
	for range 3 {
		m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return 0
		}
		start := time.Now()
		for i := 0; i < size; i += page {
			m[i] = 1
		}
		runs = append(runs, float64(time.Since(start).Microseconds())/(size/page))
		syscall.Munmap(m)
	}
	slices.Sort(runs)
	return runs[1]
}

//go:build !unix

package e2e

// pageFaultMicros is not measured here: 0.
func pageFaultMicros() float64 { return 0 }

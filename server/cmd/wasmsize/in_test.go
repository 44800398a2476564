package main

import (
	"bytes"
	"strings"
	"testing"
)

// -in names an import path; one the module does not link is a typo, not a
// table of nothing but "(other packages)".
func TestInNamesAPackageTheModuleLinks(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), []string{"-in", "github.com/riskchart/riskchart/app/no-such-package", "../../../app/wasm"}, &out)
	if err == nil || !strings.Contains(err.Error(), "-in") {
		t.Fatalf("run: %v, want an error naming -in; printed:\n%s", err, out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"-in", "runtime", "-top", "3", "../../../app/wasm"}, &out); err != nil || !strings.Contains(out.String(), "runtime.") {
		t.Errorf("-in runtime: %v\n%s", err, out.String())
	}
}

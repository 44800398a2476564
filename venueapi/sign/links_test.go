package sign

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestAppWasmDoesNotLinkSigning: the browser never signs, so app.wasm must
// not link this package (the package comment says why it is apart from
// venueapi).
func TestAppWasmDoesNotLinkSigning(t *testing.T) {
	list := exec.Command("go", "list", "-deps", "github.com/riskchart/riskchart/app/wasm")
	list.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list of app/wasm's packages: %v", err)
	}
	deps := strings.Fields(string(out))
	if slices.Contains(deps, "github.com/riskchart/riskchart/venueapi/sign") {
		t.Error("app.wasm links venueapi/sign")
	}
	if !slices.Contains(deps, "github.com/riskchart/riskchart/venueapi") {
		t.Error("app.wasm no longer links venueapi: the list is not app.wasm's")
	}
}

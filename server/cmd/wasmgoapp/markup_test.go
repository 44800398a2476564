package main

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// markupTestGo is goapp/markup_test.go: the tests of the mount from markup,
// which run inside go-app's package.
//
//go:embed goapp/markup_test.go
var markupTestGo []byte

// TestMarkupInGoAppsCopy runs goapp/markup_test.go in pkg/app of the copy
// that app.wasm is built with: how a tree is written as markup, and what
// markup cannot say exactly. The browser tests check the parse
// (TestTheAppMountsFromMarkup).
func TestMarkupInGoAppsCopy(t *testing.T) {
	out, _ := runOnTheProject(t, "runs tests inside go-app's copy")
	src, err := withoutConstraint(markupTestGo)
	if err != nil {
		t.Fatalf("goapp/markup_test.go: %v", err)
	}
	if err := os.WriteFile(filepath.Join(out, "go-app", "pkg", "app", "markup_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-modfile", filepath.Join(out, "go.mod"), "-count=1", "-run", "^TestMarkup", "-v", goApp+"/pkg/app")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in go-app's copy: %v\n%s", err, b)
	}
	for _, name := range []string{"TestMarkupPrepare", "TestMarkupEscapesAsHTMLEscapeString", "TestMarkupPrepareTwice", "TestMarkupPrepareFailsAsGoAppsMount"} {
		if !strings.Contains(string(b), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass in go-app's copy:\n%s", name, b)
		}
	}
}

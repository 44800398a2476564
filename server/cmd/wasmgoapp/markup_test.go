package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoAppsTestsAndOursPassOnItsCopy runs, in pkg/app of the copy that
// app.wasm is built with, goapp/markup_test.go (how a tree is written as
// markup, and what markup cannot say exactly; the browser tests check the
// parse, TestTheAppMountsFromMarkup; every element one type, elements.go)
// and go-app's own released tests (NotifyComponentEvent's, attributes.Set's
// and every element's among them), with every edit, added file and the
// rewritten html_gen.go, in one go test: for the server's GOOS, where the mount
// from markup hands every tree to go-app's own.
func TestGoAppsTestsAndOursPassOnItsCopy(t *testing.T) {
	out, _ := runOnTheProject(t, "runs tests inside go-app's copy")
	pkg := filepath.Join(out, "go-app", "pkg", "app")
	released := strings.TrimSpace(goOut(t, "list", "-m", "-f", "{{.Dir}}", goApp))
	tests, err := filepath.Glob(filepath.Join(released, "pkg", "app", "*_test.go"))
	if err != nil || len(tests) < 10 {
		t.Fatalf("go-app's tests in %s: %d files, %v", released, len(tests), err)
	}
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	markupTest, err := goappFiles.ReadFile("goapp/markup_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src, err := withoutConstraint(markupTest)
	if err != nil {
		t.Fatalf("goapp/markup_test.go: %v", err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "markup_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	node, err := os.ReadFile(filepath.Join(pkg, "node.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(node), "m.notifyChildren(ctx, element, event)") {
		t.Error("the copy's node.go lacks the edit: the tests below ran go-app as released")
	}
	cmd := exec.Command("go", "test", "-modfile", filepath.Join(out, "go.mod"), "-count=1", "-timeout", "2m", "-v", goApp+"/pkg/app")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in go-app's copy: %v\n%s", err, b)
	}
	for _, name := range []string{"TestMarkupPrepare", "TestMarkupEscapesAsHTMLEscapeString", "TestMarkupPrepareTwice", "TestMarkupPrepareFailsAsGoAppsMount", "TestEveryElementIsOneType", "TestActionHandlerKeyIsFmtsKey"} {
		if !strings.Contains(string(b), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass in go-app's copy:\n%s", name, b)
		}
	}
}

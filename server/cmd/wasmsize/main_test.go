package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestNamesMapBackToTheirImportPaths(t *testing.T) {
	names := newPackageNames([]string{"runtime", "github.com/maxence-charriere/go-app/v10/pkg/app", "github.com/a/b", "github.com/a/b/c", "crypto/internal/fips140/nistec"})
	tests := []struct{ sym, want string }{
		{"runtime.gcStart", "runtime"},
		{"github.com_maxence_charriere_go_app_v10_pkg_app.__Compo_.setParent", "github.com/maxence-charriere/go-app/v10/pkg/app"},
		{"github.com_a_b_c.F", "github.com/a/b/c"},
		{"github.com_a_b.F", "github.com/a/b"},
		{"crypto_internal_fips140_nistec.__P256Point_.Add", "crypto/internal/fips140/nistec"},
		{"type_.eq.main.T", "(type_)"},
		{"unknown", "(unknown)"},
	}
	for _, tt := range tests {
		if got := names.of(tt.sym); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.sym, got, tt.want)
		}
	}
}

// A module of one imported and two defined functions, named, and a data section.
func TestParseReadsBodiesNamesAndData(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("\x00asm\x01\x00\x00\x00")
	section := func(id byte, body string) { b.WriteByte(id); b.WriteByte(byte(len(body))); b.WriteString(body) }
	section(2, "\x01\x02go\x01f\x00\x00")                       // one function import
	section(10, "\x02\x03\x00\x00\x0b\x05\x00\x00\x00\x00\x0b") // bodies of 3 and 5 bytes
	section(11, "\x00\x00\x00\x00")                             // a data section of 4 bytes
	names := "\x02\x01\x06main.A\x02\x03p.B"
	sub := "\x01" + string(rune(len(names))) + names
	section(0, "\x04name"+sub)
	m, err := parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m.imported != 1 || len(m.bodies) != 2 || m.bodies[0] != 3 || m.bodies[1] != 5 || m.data != 4 || m.names[1] != "main.A" || m.names[2] != "p.B" || m.unnamed != 0 {
		t.Fatalf("read %+v", m)
	}
	all := func(string) bool { return true }
	if got := m.over(4, all); len(got) != 1 || got[0] != (row{"p.B", 5}) {
		t.Errorf("over 4 bytes: %v, want p.B's 5", got)
	}
	if got := m.over(4, func(name string) bool { return name != "p.B" }); len(got) != 0 {
		t.Errorf("over 4 bytes, p.B left out: %v, want none", got)
	}
	if got := m.over(2, all); len(got) != 2 || got[0].name != "p.B" {
		t.Errorf("over 2 bytes: %v, want p.B then main.A", got)
	}
	if _, err := parse(b.Bytes()[:b.Len()-3]); err == nil {
		t.Error("no error for a module cut short")
	}
	if _, err := parse([]byte("not wasm")); err == nil {
		t.Error("no error for a file that is not a module")
	}
}

func TestTheAppsModuleAddsUp(t *testing.T) {
	if _, err := os.Stat("../../../app/wasm"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-top", "5", "../../../app/wasm"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"runtime ", "github.com/maxence-charriere/go-app/v10/pkg/app", "(data segments"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "no name") {
		t.Errorf("functions without names:\n%s", out.String())
	}
}

// The app's own functions stay small enough for V8 not to tier them up on
// their first call (docs/startup.md, "What tiers Go's code up"): the
// calculator's Render was 44.7 kB and the tables' over 20 kB.
func TestNoFunctionOfTheAppIsLargeEnoughToTierUpAtOnce(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-over", "12000", "../../../app/wasm"}, &out); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "no function of github.com/riskchart/riskchart is over 12000 bytes") {
		t.Errorf("output: %s", out.String())
	}
	if err := run(t.Context(), []string{"-over", "-1"}, &out); err == nil || !strings.Contains(err.Error(), "-over") {
		t.Errorf("-over -1: %v, want an error naming -over", err)
	}
}

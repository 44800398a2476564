package main

import (
	"errors"
	"io"
	"runtime/debug"
	"strings"
	"testing"
)

// TestTheServersBuildIsNamedByItsCommitOrItsExecutable: the front end's
// version covers the server's own build, so that a release of the server
// alone replaces the shells browsers keep (docs/architecture.md, "The
// page before the app").
func TestTheServersBuildIsNamedByItsCommitOrItsExecutable(t *testing.T) {
	stamped := func(settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Settings: settings}, true }
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0c4b003"}
	clean, dirty := debug.BuildSetting{Key: "vcs.modified", Value: "false"}, debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	exe := func(body string) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	}
	broken := func() (io.ReadCloser, error) { return nil, errors.New("no executable") }
	tests := []struct {
		name    string
		info    func() (*debug.BuildInfo, bool)
		exe     func() (io.ReadCloser, error)
		want    string // the name, or with wantErr what the error says
		wantErr bool
	}{
		{"a clean checkout: its commit", stamped(rev, clean), broken, "commit 0c4b003", false},
		{"a changed tree: its executable", stamped(rev, dirty), exe("a"), "executable ca978112ca1bbdcafac231b39a23dc4d", false},
		{"no VCS stamp: its executable", stamped(), exe("a"), "executable ca978112ca1bbdcafac231b39a23dc4d", false},
		{"no build information: its executable", func() (*debug.BuildInfo, bool) { return nil, false }, exe("b"), "executable 3e23e8160039594a33894f6564e1b134", false},
		{"no executable to read", stamped(rev, dirty), broken, "naming this server's build: no executable", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := buildOf(tt.info, tt.exe)
			switch {
			case tt.wantErr && (err == nil || err.Error() != tt.want):
				t.Fatalf("buildOf = %q, %v; want the error %q", got, err, tt.want)
			case !tt.wantErr && (err != nil || got != tt.want):
				t.Fatalf("buildOf = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// Two executables are two builds.
	a, _ := buildOf(stamped(), exe("a"))
	b, _ := buildOf(stamped(), exe("b"))
	if a == b {
		t.Fatalf("two executables are named alike: %q", a)
	}
}

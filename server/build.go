package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// serverBuild names this server's build, for the front end's version: the
// shells the service worker keeps until the next version are rendered by
// the server (the sketch, the theme, the first data's places), so a release
// of the server alone must be a new version too (docs/architecture.md, "The
// page before the app"). A build from a clean checkout is named by its commit,
// which replicas built apart share; any other (a changed tree, no VCS
// stamp) by a hash of its executable.
func serverBuild() (string, error) {
	return buildOf(debug.ReadBuildInfo, func() (io.ReadCloser, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		return os.Open(exe)
	})
}

// buildOf is serverBuild with where it reads the build's stamp and its
// executable from.
func buildOf(info func() (*debug.BuildInfo, bool), exe func() (io.ReadCloser, error)) (string, error) {
	if bi, ok := info(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" && modified == "false" {
			return "commit " + rev, nil
		}
	}
	f, err := exe()
	if err != nil {
		return "", fmt.Errorf("naming this server's build: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("naming this server's build: reading its executable: %w", err)
	}
	return "executable " + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

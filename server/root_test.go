package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A server started where the front end is not (a service started from
// another working directory, or RISKCHART_ROOT mistyped) is refused naming
// RISKCHART_ROOT and the folder it read, the setting that fixes it (README,
// "Configuration"), not only a file missing from it.
func TestAFolderWithoutTheFrontEndIsRefusedNamingRiskchartRoot(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct{ name, root string }{
		{"an empty folder", empty},
		{"a folder that does not exist", filepath.Join(empty, "missing")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": tc.root}
			err := run(context.Background(), []string{"riskchart"}, func(k string) string { return vars[k] }, io.Discard, io.Discard)
			if err == nil {
				t.Fatal("the server started without its front end")
			}
			for _, want := range []string{"RISKCHART_ROOT", tc.root, "web/"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

package gateway

import (
	"net/http/httptest"
	"testing"

	"github.com/riskchart/riskchart/server/internal/firstdata"
)

// TestAShellTheWorkerKeepsIsNeverAPageBeingShown: the service worker's
// requests for the shells it keeps until the next release are marked
// (firstdata.ShellHeader), and get no first data even where Sec-Fetch-Dest
// is missing (a browser without Fetch Metadata, a proxy that drops it),
// which otherwise counts as a page the browser loads itself.
func TestAShellTheWorkerKeepsIsNeverAPageBeingShown(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   bool
	}{
		{"a page load without Fetch Metadata", nil, true},
		{"a page load", map[string]string{"Sec-Fetch-Dest": "document"}, true},
		{"a navigation the worker sends on", map[string]string{"Sec-Fetch-Dest": "empty", firstdata.NavigationHeader: "1"}, true},
		{"a shell the worker keeps", map[string]string{"Sec-Fetch-Dest": "empty", firstdata.ShellHeader: "1"}, false},
		{"a shell the worker keeps, without Fetch Metadata", map[string]string{firstdata.ShellHeader: "1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if got := shownNow(r); got != tt.want {
				t.Fatalf("shownNow = %v, want %v", got, tt.want)
			}
		})
	}
}

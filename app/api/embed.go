package api

import (
	"context"
	"encoding/json"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// FetchEmbedOrigins asks the server which origins may frame its embeds;
// none when it cannot tell (only the server's own pages then).
func FetchEmbedOrigins(ctx context.Context) []string {
	a, err := browser.Fetch(ctx, "GET", browser.Origin()+venueapi.PathEmbedConfig, "", nil)
	var cfg struct {
		Origins []string `json:"origins"`
	}
	if err != nil || json.Unmarshal([]byte(a.Body), &cfg) != nil {
		return nil
	}
	return cfg.Origins
}

package gateway

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/riskchart/riskchart/app/embedmsg"
)

// ParseFrameAncestors reads a space-separated list of the origins allowed
// to frame the pages, as the Content-Security-Policy's frame-ancestors
// directive takes them and as the embeds match them (app/embedmsg): an
// origin (https://partner.example, http://localhost:3000), one whose host
// starts with a wildcard label (https://*.partner.example), or 'self'.
// Anything else could widen the policy it is copied into, so the error
// names the entry and the rule (docs/decisions.md#frame-ancestors).
func ParseFrameAncestors(list string) ([]string, error) {
	var out []string
	for _, src := range strings.Fields(list) {
		if err := checkFrameAncestor(src); err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// checkFrameAncestor checks one frame-ancestors source expression.
func checkFrameAncestor(src string) error {
	bad := func(rule string) error { return fmt.Errorf("frame ancestor %q: %s", src, rule) }
	switch {
	case src == "'self'":
		return nil // always in the policy; harmless to repeat
	case src == "'none'":
		return bad("'none' cannot stand beside 'self', which the pages always allow; leave the list empty to allow only their own origin")
	case strings.ContainsAny(src, ";,'\"\\"):
		return bad("must be an origin such as https://partner.example; separate origins with spaces, and no ';', ',', quotes or directives")
	}
	scheme, rest, ok := strings.Cut(strings.ToLower(src), "://")
	if !ok {
		if strings.HasSuffix(src, ":") {
			return bad("a scheme alone would let every site framing over it in; name the origin, e.g. https://partner.example")
		}
		return bad("must start with https:// or http://")
	}
	if scheme != "https" && scheme != "http" {
		return bad("must start with https:// or http://")
	}
	if strings.ContainsAny(rest, "/?#@") {
		return bad("must be an origin: scheme://host[:port], with no path, query or user")
	}
	host, port, hasPort := strings.Cut(rest, ":")
	if hasPort && !validPort(port) {
		return bad("the port must be a number from 1 to 65535")
	}
	name, wild := strings.CutPrefix(host, "*.")
	if !validHostName(name) {
		return bad("the host must be letters, digits, '-' and '.', optionally after a leading \"*.\" for its subdomains")
	}
	if wild && !strings.Contains(name, ".") {
		return bad("a wildcard must stand before a domain of at least two labels, e.g. https://*.partner.example")
	}
	return nil
}

// crossSite returns why a request for private data must be refused as sent
// by another site's page, or "" when it may pass. Browsers say where a
// request comes from (Sec-Fetch-Site, Origin); curl and venue clients say
// neither and pass, as their callers hold the viewer token or sit on
// loopback themselves. An embed is our own page in a frame, so its requests
// are same-origin. See docs/decisions.md#cross-site-requests.
func (s *server) crossSite(r *http.Request) string {
	origins := r.Header.Values("Origin")
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site":
		return "the browser says a page of another site sent it"
	case "same-site":
		if len(origins) == 0 {
			return "the browser says another origin of this site sent it, and names no origin"
		}
	}
	for _, o := range origins {
		if !s.originAllowed(o, r.Host) {
			return "it comes from an origin that is neither this server's nor one allowed to frame its pages"
		}
	}
	return ""
}

// originAllowed reports whether an Origin header is the server's own (the
// host the request was sent to, already checked by hostChecked, or the
// public URL's) or one of the frame ancestors.
func (s *server) originAllowed(origin, host string) bool {
	o := embedmsg.Origin(origin)
	switch {
	case o == "": // "null", or not an origin
		return false
	case o == embedmsg.Origin("http://"+host) || o == embedmsg.Origin("https://"+host):
		return true
	}
	return s.origins.Allows(o)
}

// originAllowList is the public URL's origin and the frame ancestors, read
// as the embeds read them.
func originAllowList(cfg Config) embedmsg.AllowList {
	self := ""
	if cfg.PublicURL != nil {
		self = cfg.PublicURL.Scheme + "://" + cfg.PublicURL.Host
	}
	return embedmsg.NewAllowList(self, cfg.FrameAncestors)
}

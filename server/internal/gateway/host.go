package gateway

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/riskchart/riskchart/venueapi"
)

// hostRule is one host name requests may carry in their Host header: a
// name, lower-cased and without a trailing dot, and a port ("" for any).
type hostRule struct{ name, port string }

// anyHost is the allowed-hosts entry that lets every Host through: an
// operator's explicit choice, never a default.
const anyHost = "*"

// ParseAllowedHosts reads a comma-separated list of host names, each with
// an optional port (charts.example.com, charts.example.com:8443,
// 10.0.0.5:8080, [2001:db8::1]:8080), or "*" alone for any host. It returns
// the entries as the gateway's Config.AllowedHosts takes them.
func ParseAllowedHosts(list string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if e != anyHost {
			if _, err := parseHostRule(e); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	if len(out) > 1 && slices.Contains(out, anyHost) {
		return nil, errors.New(`"*" allows every host and stands alone: give it or a list of names`)
	}
	return out, nil
}

// parseHostRule reads one allowed-hosts entry, naming it and the rule when
// it is not a host name with an optional port.
func parseHostRule(e string) (hostRule, error) {
	bad := func(rule string) (hostRule, error) {
		return hostRule{}, fmt.Errorf("allowed host %q: %s", e, rule)
	}
	if strings.Contains(e, "://") || strings.ContainsAny(e, "/?#@ \t") {
		return bad("must be a host name with an optional port, e.g. charts.example.com or charts.example.com:8443, not a URL")
	}
	name, port := splitHost(e)
	if port != "" && !validPort(port) {
		return bad("the port must be a number from 1 to 65535")
	}
	if net.ParseIP(name) == nil && !validHostName(name) {
		return bad("the name must be an IP address or letters, digits, '-' and '.'")
	}
	return hostRule{name: name, port: port}, nil
}

// splitHost splits a Host header or an allowed-hosts entry into its name
// (lower-cased, brackets and a trailing dot removed) and its port, "" when
// it has none.
func splitHost(hostport string) (name, port string) {
	name = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	// Only a colon after any closing bracket may start a port: asked of a
	// Host without one, net.SplitHostPort would allocate an error for every
	// request.
	if strings.LastIndexByte(hostport, ':') > strings.LastIndexByte(hostport, ']') {
		if h, p, err := net.SplitHostPort(hostport); err == nil {
			name, port = h, p
		}
	}
	return strings.TrimSuffix(strings.ToLower(name), "."), port
}

func validPort(p string) bool {
	n := 0
	for _, c := range []byte(p) {
		if c < '0' || c > '9' || n > 65535 {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return len(p) > 0 && n >= 1 && n <= 65535
}

// validHostName reports whether name is dot-separated labels of letters,
// digits and '-'.
func validHostName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// hostRules is the set of Host headers the gateway answers: the loopback
// names, the public URL's host and the allowed hosts; nil allows any.
func hostRules(cfg Config) ([]hostRule, error) {
	if slices.Contains(cfg.AllowedHosts, anyHost) {
		return nil, nil
	}
	// The loopback names on every listener: a browser sends them only to its
	// own machine, and no page served under another name can read what they
	// answer, unlike a name whose DNS the page's owner controls.
	rules := []hostRule{{name: "localhost"}, {name: "127.0.0.1"}, {name: "::1"}}
	if cfg.PublicURL != nil {
		// Any port: the port a proxy forwards does not let another page in.
		rules = append(rules, hostRule{name: strings.TrimSuffix(strings.ToLower(cfg.PublicURL.Hostname()), ".")})
	}
	for _, e := range cfg.AllowedHosts {
		r, err := parseHostRule(e)
		if err != nil {
			return nil, fmt.Errorf("gateway: %w", err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// hostAllowed reports whether a request's Host header is one the gateway
// answers for.
func (s *server) hostAllowed(host string) bool {
	if s.hosts == nil {
		return true
	}
	name, port := splitHost(host)
	for _, r := range s.hosts {
		if r.name == name && (r.port == "" || r.port == port) {
			return true
		}
	}
	return false
}

// hostChecked answers only requests addressed to one of the gateway's host
// names, so that a page whose own name resolves to this server (DNS
// rebinding) cannot read it: such a page's requests carry its name. Health
// checks answer any Host: load balancers probe by address, and they say
// nothing about the account. See docs/decisions.md#host-names.
func (s *server) hostChecked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hostAllowed(r.Host) || r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
			next.ServeHTTP(w, r)
			return
		}
		refuse(r, refusalHost)
		// Written here rather than by writeError: this is no venue answer but
		// the server declining the request, on every path, pages included.
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusMisdirectedRequest)
		w.Write(venueapi.ErrorBody(r.URL.Path, venueapi.CodeForbidden, "this server does not answer for the host name this request was sent to; "+
			"the operator lists the names it answers in RISKCHART_PUBLIC_URL and RISKCHART_ALLOWED_HOSTS", s.now().UnixMilli()))
	})
}

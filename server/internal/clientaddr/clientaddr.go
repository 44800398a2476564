// Package clientaddr says which address a request comes from when the
// server stands behind reverse proxies: the peer of the connection, unless
// that peer is a proxy the operator trusts, in which case the address that
// proxy (and any trusted proxy before it) wrote into the one forwarding
// header the operator names, X-Forwarded-For or Forwarded. Only the
// rightmost addresses are believed: everything left of the first untrusted
// hop was written by the client itself and can be anything. The other
// header is never read: a proxy passes it through as the client sent it.
// See docs/deploy.md#behind-a-reverse-proxy.
package clientaddr

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Header is the forwarding header trusted proxies name the client in. The
// zero value is XForwardedFor.
type Header uint8

const (
	XForwardedFor Header = iota // X-Forwarded-For: 192.0.2.43, 198.51.100.9
	Forwarded                   // RFC 7239's Forwarded: for=192.0.2.43, for="[2001:db8::7]:4711"
)

// String is the header's name as HTTP writes it, which is also its key in
// an http.Header.
func (h Header) String() string {
	if h == Forwarded {
		return "Forwarded"
	}
	return "X-Forwarded-For"
}

// ParseHeader reads a forwarding header's name, in any case.
func ParseHeader(s string) (Header, error) {
	switch {
	case strings.EqualFold(s, "X-Forwarded-For"):
		return XForwardedFor, nil
	case strings.EqualFold(s, "Forwarded"):
		return Forwarded, nil
	}
	return 0, errors.New("must be X-Forwarded-For or Forwarded")
}

// Resolver finds a request's client address. The zero value trusts no proxy:
// the client is always the connection's peer.
type Resolver struct {
	trusted []netip.Prefix
	header  Header
}

// New returns a Resolver that believes header, and only header, from peers
// within trusted.
func New(trusted []netip.Prefix, header Header) *Resolver {
	return &Resolver{trusted: trusted, header: header}
}

// ParsePrefixes reads a comma-separated list of CIDR prefixes or single
// addresses ("10.0.0.0/8, 192.0.2.7, ::1"). An error names the entry and
// the rule.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			if strings.TrimSpace(s) == "" {
				return nil, nil
			}
			return nil, fmt.Errorf("entry %d is empty: list CIDR prefixes or addresses, comma-separated", i+1)
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			if p != p.Masked() {
				return nil, fmt.Errorf("entry %d (%q) has bits set past its prefix length: write %s", i+1, item, p.Masked())
			}
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				// Peers are compared unmapped: an IPv4-mapped prefix is its
				// IPv4 prefix, as an IPv4-mapped address is its IPv4 address.
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p)
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("entry %d (%q) must be a CIDR prefix like 10.0.0.0/8 or an address like 192.0.2.7", i+1, item)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// Holder is the address a client's quota counts against: an IPv4 address,
// or an IPv6 /64, which one host usually holds whole and would otherwise
// have 2^64 quotas.
func Holder(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64) // 64 bits of an IPv6 address: no error
		return p.Addr()
	}
	return a
}

// Trusted reports whether a is one of the trusted proxies. A link-local
// peer's zone (fe80::1%eth0) names the interface it came in on, which no
// entry can say (ParsePrefixes refuses zones), and a prefix never contains
// a zoned address: it is compared without it.
func (r *Resolver) Trusted(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client returns req's client address, and whether it was read from the
// forwarding header (the request came through a trusted proxy). ok is false
// only when RemoteAddr is not an address (a test's or a pipe's), and then
// addr is the zero Addr.
func (r *Resolver) Client(req *http.Request) (addr netip.Addr, forwarded, ok bool) {
	peer, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		a, err := netip.ParseAddr(req.RemoteAddr)
		if err != nil {
			return netip.Addr{}, false, false
		}
		peer = netip.AddrPortFrom(a, 0)
	}
	client := peer.Addr().Unmap()
	if len(r.trusted) == 0 || !r.Trusted(client) {
		return client, false, true
	}
	lines := req.Header[r.header.String()] // canonical names: no lookup by CanonicalHeaderKey
	if len(lines) == 0 {
		return client, false, true
	}
	// Right to left, without allocating (this runs on every request): each
	// trusted hop vouches for the one before it.
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for rest != "" {
			var hop string
			if j := strings.LastIndexByte(rest, ','); j >= 0 {
				rest, hop = rest[:j], rest[j+1:]
			} else {
				rest, hop = "", rest
			}
			if r.header == Forwarded {
				hop = forOf(hop)
			}
			a, err := parseHop(strings.TrimSpace(hop))
			if err != nil {
				// A trusted proxy wrote something that is not an address
				// (or an obfuscated Forwarded node): the last hop known
				// good is the best there is.
				return client, true, true
			}
			client = a
			if !r.Trusted(a) {
				return client, true, true
			}
		}
	}
	return client, true, true
}

// forOf is the for= parameter of one Forwarded element
// (for=192.0.2.43;proto=https), unquoted, or "" when it has none.
func forOf(elem string) string {
	for elem != "" {
		var pair string
		pair, elem, _ = strings.Cut(elem, ";")
		k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(k, "for") {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

var errNotAnAddress = errors.New("not an address")

// parseHop reads one hop: an address, with or without a port, IPv6 in
// brackets when it has one ("192.0.2.1", "192.0.2.1:4711", "2001:db8::1",
// "[2001:db8::1]:4711", "[2001:db8::1]"). It splits the port off itself and
// parses the address once, so that a well-formed hop costs no allocation,
// port or not (a failed parse allocates its error).
func parseHop(s string) (netip.Addr, error) {
	host, port, hasPort, bracketed := s, "", false, false
	if rest, ok := strings.CutPrefix(s, "["); ok {
		var after string
		if host, after, ok = strings.Cut(rest, "]"); !ok {
			return netip.Addr{}, errNotAnAddress
		}
		if port, hasPort = strings.CutPrefix(after, ":"); !hasPort && after != "" {
			return netip.Addr{}, errNotAnAddress
		}
		bracketed = true
	} else if h, p, ok := strings.Cut(s, ":"); ok && !strings.Contains(p, ":") { // one colon: IPv4 and a port
		host, port, hasPort = h, p, true
	}
	if hasPort {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil { // as netip.ParseAddrPort reads a port
			return netip.Addr{}, errNotAnAddress
		}
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" || bracketed && a.Is4() { // brackets are for IPv6 alone
		return netip.Addr{}, errNotAnAddress
	}
	return a.Unmap(), nil
}

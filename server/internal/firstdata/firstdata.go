// Package firstdata hands what the gateway holds to the front end that
// prerenders a page, through the page request's context: the gateway knows
// its caches and who may see them, the front end knows the page's view.
package firstdata

import "context"

// TiersLookup returns the tier path's answer (JSON) for contract when the
// server holds it fresh and the page's viewer may see it; ok is false
// otherwise.
type TiersLookup func(contract string) (body []byte, ok bool)

type tiersKey struct{}

// WithTiers is ctx carrying lookup.
func WithTiers(ctx context.Context, lookup TiersLookup) context.Context {
	return context.WithValue(ctx, tiersKey{}, lookup)
}

// Tiers is the lookup ctx carries; ok is false when it carries none (the
// viewer may not see tiers, or no gateway is in front).
func Tiers(ctx context.Context) (lookup TiersLookup, ok bool) {
	lookup, ok = ctx.Value(tiersKey{}).(TiersLookup)
	return lookup, ok && lookup != nil
}

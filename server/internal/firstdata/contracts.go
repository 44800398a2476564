package firstdata

import "context"

// ContractsLookup returns the contract path's answer (JSON) when the server
// holds the list; ok is false otherwise.
type ContractsLookup func() (body []byte, ok bool)

type contractsKey struct{}

// WithContracts is ctx carrying lookup.
func WithContracts(ctx context.Context, lookup ContractsLookup) context.Context {
	return context.WithValue(ctx, contractsKey{}, lookup)
}

// Contracts is the lookup ctx carries; ok is false when it carries none (a
// fetch of the page to keep, or no gateway is in front).
func Contracts(ctx context.Context) (lookup ContractsLookup, ok bool) {
	lookup, ok = ctx.Value(contractsKey{}).(ContractsLookup)
	return lookup, ok && lookup != nil
}

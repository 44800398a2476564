package cluster

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed lua/log.lua
	logLua string
	//go:embed lua/reserve.lua
	reserveLua string
	//go:embed lua/join.lua
	joinLua string
	//go:embed lua/pause.lua
	pauseLua string
	//go:embed lua/release.lua
	releaseLua string
	//go:embed lua/share.lua
	shareLua string
	//go:embed lua/pooled.lua
	pooledLua string
)

// scripts are the client's Lua scripts; each runs atomically in Redis. The
// two that change a budget's log begin with what they share of it.
type scripts struct {
	reserve, join, pause, release, share, pooled *redis.Script
}

func newScripts() scripts {
	return scripts{reserve: redis.NewScript(logLua + reserveLua), join: redis.NewScript(logLua + joinLua), pause: redis.NewScript(pauseLua),
		release: redis.NewScript(releaseLua), share: redis.NewScript(shareLua), pooled: redis.NewScript(pooledLua)}
}

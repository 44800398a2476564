package cluster

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed lua/reserve.lua
	reserveLua string
	//go:embed lua/join.lua
	joinLua string
	//go:embed lua/pause.lua
	pauseLua string
	//go:embed lua/release.lua
	releaseLua string
)

// scripts are the client's Lua scripts; each runs atomically in Redis.
type scripts struct {
	reserve, join, pause, release *redis.Script
}

func newScripts() scripts {
	return scripts{reserve: redis.NewScript(reserveLua), join: redis.NewScript(joinLua), pause: redis.NewScript(pauseLua),
		release: redis.NewScript(releaseLua)}
}

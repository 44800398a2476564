package browser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The app's log is the browser's console. Warn and Debug write a line there
// at the console's own level, which DevTools shows and filters by: slog's
// default handler wrote through package log to wasm_exec.js, which writes
// every line of Go's output with console.log, and slog and log linked
// 230 kB into app.wasm (docs/startup.md, "What app.wasm links").

// Warn writes msg and its key-value pairs to the console as a warning.
func Warn(msg string, kv ...any) { consoleLine("warn", msg, kv) }

// Debug writes msg and its key-value pairs to the console's verbose level,
// which DevTools shows only when asked.
func Debug(msg string, kv ...any) { consoleLine("debug", msg, kv) }

func consoleLine(level, msg string, kv []any) {
	app.Window().Get("console").Call(level, logLine(msg, kv))
}

// logLine writes msg, then each key and value as slog's text handler
// would: key=value, a value quoted when it is empty or holds a space, a
// quote or an equals sign, and a key without a value named !BADKEY.
func logLine(msg string, kv []any) string {
	var b strings.Builder
	b.WriteString(msg)
	for i := 0; i < len(kv); i += 2 {
		key, value := fmt.Sprint(kv[i]), ""
		if i+1 < len(kv) {
			value = fmt.Sprint(kv[i+1])
		} else {
			key, value = "!BADKEY", key
		}
		if value == "" || strings.ContainsAny(value, " =\"\t\n") {
			value = strconv.Quote(value)
		}
		b.WriteString(" " + key + "=" + value)
	}
	return b.String()
}

// Command formatstring prints what go-app's FormatString makes of a set of
// values, one JSON string per line: the edit of pkg/app/strings.go must not
// change a byte of it (TestTheEditsKeepGoAppsFormatString).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// named is a string type with a String method: %v calls it.
type named string

func (n named) String() string { return "named:" + string(n) }

// plain is a string type without one.
type plain string

func main() {
	values := []any{
		"", "label", " padded ", "ünïcödé ✓", "%v",
		true, false,
		0, 1, -1, math.MaxInt, math.MinInt,
		int64(math.MaxInt64), int64(math.MinInt64), int32(-5), 'a', int32(math.MinInt32),
		uint(0), uint(math.MaxUint), uint64(math.MaxUint64),
		uint8(7), int16(-3), 1.5, float32(0.1), math.Inf(1),
		nil, errors.New("an error"), named("x"), plain("y"), []int{1, 2}, time.Duration(1500) * time.Millisecond,
		struct{ A int }{3}, &struct{}{},
	}
	for _, v := range values {
		out := []string{app.FormatString("%v", v), app.FormatString("%d", v), app.FormatString("[%v]", v)}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
	b, _ := json.Marshal([]string{app.FormatString("%v"), app.FormatString("%v", 1, 2), app.FormatString("%v %v", "a", true)})
	fmt.Println(string(b))
}

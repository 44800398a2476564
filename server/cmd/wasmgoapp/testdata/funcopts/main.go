// Command funcopts prints what go-echarts' JavaScript helpers make of a set
// of inputs, one JSON string per line: the edits of opts/js.go must not
// change a byte of it (TestTheEditsTakeRegexpOutAndKeepGoEChartsOutput).
package main

import (
	"encoding/json"
	"fmt"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

func main() {
	inputs := []string{
		"",
		"function (p) { return p.value; }",
		"function (p) {\n\treturn p.value; // the value\n}\n",
		"// a comment alone\n",
		"a // one\nb // two\nc",
		"no newline after // this comment",
		"url = 'http://example.com/x';\nnext()\n",
		"////\n//\n\t\t\n",
		"a\r\nb // c\r\nd\te",
		"ünïcödé // ✓\n$1 ${x} // $0\n",
	}
	for _, in := range inputs {
		var f opts.JSFunctions
		f.AddJSFuncs(in)
		f.AddJSFuncStrs(types.FuncStr(in))
		out := []string{string(opts.FuncOpts(in)), opts.FuncStripCommentsOpts(in), string(f.Fns[0]), string(f.Fns[1])}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
}

package browser

import (
	"errors"
	"testing"
)

func TestLogLine(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		kv   []any
		want string
	}{
		{"the message alone", "the chart did not load", nil, "the chart did not load"},
		{"plain values", "the chart did not load", []any{"contract", "BTC-USDT", "period", "1min"},
			"the chart did not load contract=BTC-USDT period=1min"},
		{"an error with spaces is quoted", "older candles did not load", []any{"err", errors.New("the venue is busy")},
			`older candles did not load err="the venue is busy"`},
		{"an empty value is quoted", "m", []any{"k", ""}, `m k=""`},
		{"a quote or an equals sign is quoted", "m", []any{"a", `say "hi"`, "b", "x=y"}, `m a="say \"hi\"" b="x=y"`},
		{"a number", "m", []any{"from", int64(1796301360)}, "m from=1796301360"},
		{"a key without a value", "m", []any{"k", "v", "alone"}, "m k=v !BADKEY=alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := logLine(tt.msg, tt.kv); got != tt.want {
				t.Errorf("logLine(%q, %v) = %q, want %q", tt.msg, tt.kv, got, tt.want)
			}
		})
	}
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/wasmbin"
)

// seg is a segment as a test writes it: flags 0, i32.const offset.
type seg struct {
	offset int32
	data   string
}

// module is a WebAssembly module with a type section, an optional data
// count section, a data section of segs and a custom section, each with
// bytes the merge must keep.
func module(dataCount bool, segs ...seg) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = appendSection(b, 1, []byte{1, 0x60, 0, 0}) // one type: func() -> ()
	if dataCount {
		b = appendSection(b, sectionDataCount, wasmbin.AppendUleb(nil, uint64(len(segs))))
	}
	body := wasmbin.AppendUleb(nil, uint64(len(segs)))
	for _, s := range segs {
		body = append(body, 0, opI32Const)
		body = wasmbin.AppendSleb(body, int64(s.offset))
		body = append(body, opEnd)
		body = wasmbin.AppendUleb(body, uint64(len(s.data)))
		body = append(body, s.data...)
	}
	b = appendSection(b, sectionData, body)
	return appendSection(b, 0, []byte("\x04name\x01\x02\x03")) // a custom section
}

// memoryOf is the memory the test's segments write, up to the last byte.
func memoryOf(segs []seg) []byte {
	var mem []byte
	for _, s := range segs {
		if end := int(s.offset) + len(s.data); end > len(mem) {
			mem = append(mem, make([]byte, end-len(mem))...)
		}
		copy(mem[s.offset:], s.data)
	}
	return mem
}

func TestMergeDataJoinsSegmentsUpToTheGapAndKeepsTheMemory(t *testing.T) {
	segs := []seg{ // out of order, as Go's linker writes sections
		{4096, "tail"},
		{16, "abc"},
		{19, "de"},          // right after: gap 0
		{26, "fgh"},         // gap 5
		{93, "ij"},          // gap 64 from 29
		{160, "k"},          // gap 65 from 95
		{1000, "\x00\x00x"}, // zeros inside a segment stay
	}
	tests := []struct {
		name      string
		gap       int
		dataCount bool
		want      []seg // the merged segments, in memory order
	}{
		{"gap 0: only touching segments", 0, false, []seg{{16, "abcde"}, {26, "fgh"}, {93, "ij"}, {160, "k"}, {1000, "\x00\x00x"}, {4096, "tail"}}},
		{"gap 64", 64, false, []seg{{16, "abcde\x00\x00\x00\x00\x00fgh" + strings.Repeat("\x00", 64) + "ij"}, {160, "k"}, {1000, "\x00\x00x"}, {4096, "tail"}}},
		{"gap 65, with a data count section", 65, true, []seg{{16, "abcde\x00\x00\x00\x00\x00fgh" + strings.Repeat("\x00", 64) + "ij" + strings.Repeat("\x00", 65) + "k"}, {1000, "\x00\x00x"}, {4096, "tail"}}},
		{"a gap as large as the memory: one segment", 1 << 20, false, []seg{{16, string(memoryOf(segs)[16:])}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := module(tt.dataCount, segs...)
			got, st, err := mergeData(in, tt.gap)
			if err != nil {
				t.Fatal(err)
			}
			if want := module(tt.dataCount, tt.want...); !bytes.Equal(got, want) {
				t.Fatalf("merged module\n%q\nwant\n%q", got, want)
			}
			if st.before != len(segs) || st.after != len(tt.want) {
				t.Errorf("stats %+v, want %d → %d", st, len(segs), len(tt.want))
			}
			if !bytes.Equal(memoryOf(tt.want), memoryOf(segs)) { // the table itself
				t.Error("the wanted segments write another memory")
			}
		})
	}
}

func TestMergeDataRefusesWhatItCannotMergeSafely(t *testing.T) {
	valid := module(false, seg{0, "a"})
	dataAt := bytes.LastIndex(valid, []byte{sectionData})
	tests := []struct {
		name, want string
		module     []byte
	}{
		{"not WebAssembly", "not a WebAssembly module", []byte("\x7fELF\x02\x01\x01\x00")},
		{"overlapping segments", "overlap", module(false, seg{0, "abcd"}, seg{2, "xy"})},
		{"a passive segment", "flags 1", appendSection([]byte("\x00asm\x01\x00\x00\x00"), sectionData, []byte{1, 1, 1, 'a'})},
		{"an offset from a global", "not an i32.const", appendSection([]byte("\x00asm\x01\x00\x00\x00"), sectionData, []byte{1, 0, 0x23, 0, opEnd, 1, 'a'})},
		{"a segment longer than its section", "ends early", appendSection([]byte("\x00asm\x01\x00\x00\x00"), sectionData, []byte{1, 0, opI32Const, 0, opEnd, 9, 'a'})},
		{"a section longer than the module", "ends early", valid[:len(valid)-3]},
		{"a segment size past 64 bits", "longer than 64 bits", appendSection([]byte("\x00asm\x01\x00\x00\x00"), sectionData, []byte{1, 0, opI32Const, 0, opEnd, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 'a'})},
		{"data past 1 GiB", "past 1024 MiB", module(false, seg{-16, "a"})},
		{"no segment", "no segment", appendSection([]byte("\x00asm\x01\x00\x00\x00"), sectionData, []byte{0})},
		{"no data section", "no data section", appendSection([]byte("\x00asm\x01\x00\x00\x00"), 1, []byte{0})},
		{"two data sections", "two data sections", append(append([]byte(nil), valid...), valid[dataAt:dataAt+7]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := mergeData(tt.module, 64)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestRunNamesABadGap(t *testing.T) {
	err := run([]string{"-gap", "-1", "x.wasm"}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "-gap is -1: it must be 0 or more") {
		t.Fatalf("error %v", err)
	}
}

// TestAGoProgramRunsTheSameMerged builds a Go program for js/wasm whose data
// has runs of zeros, merges its segments and runs both modules in Node, as
// go test does for js/wasm: the same output, from far fewer segments.
func TestAGoProgramRunsTheSameMerged(t *testing.T) {
	dir := t.TempDir()
	src := `package main

import (
	"fmt"
	"hash/crc32"
)

var table = [...]struct {
	name  string
	n     int64
	pad   [24]byte
	flags uint8
}{{"alpha", 1, [24]byte{}, 1}, {"beta", 0, [24]byte{}, 0}, {"gamma", 1 << 40, [24]byte{7}, 2}}

func main() {
	sum := crc32.NewIEEE()
	for _, e := range table {
		fmt.Fprintf(sum, "%s %d %v %d\n", e.name, e.n, e.pad, e.flags)
	}
	fmt.Printf("%d entries, crc %08x, %s\n", len(table), sum.Sum32(), fmt.Sprint(table[2]))
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/zeros\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const goBin = "go"
	wasm := filepath.Join(dir, "prog.wasm")
	build := exec.Command(goBin, "build", "-o", wasm, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building for js/wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	execWasm := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	runIt := func(path string) string {
		t.Helper()
		out, err := exec.Command(execWasm, path).CombinedOutput()
		if err != nil {
			t.Fatalf("running %s in Node: %v\n%s", path, err, out)
		}
		return string(out)
	}
	before := runIt(wasm)

	var log bytes.Buffer
	if err := run([]string{wasm}, &log); err != nil {
		t.Fatal(err)
	}
	if after := runIt(wasm); after != before || !strings.Contains(before, "3 entries") {
		t.Fatalf("merged module printed %q, the linker's %q", after, before)
	}
	var n, m, sizeBefore, sizeAfter int
	var name string
	if _, err := fmt.Sscanf(log.String(), "%s %d data segments → %d, %d bytes → %d", &name, &n, &m, &sizeBefore, &sizeAfter); err != nil {
		t.Fatalf("log %q: %v", log.String(), err)
	}
	if m >= n/10 || m < 1 {
		t.Errorf("%d segments merged into %d: want at most a tenth", n, m)
	}
}

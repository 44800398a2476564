package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// BenchmarkStartUpMainThread is the second half of make trace-startup: one
// cold and one next visit of the go-app page and of the plain page, each
// under Chromium's tracing, and what the page's main thread did until the
// first candles (and, for the app, until go-app's loader left), by kind,
// beside what the renderer's other threads and the other processes did in
// the same span (docs/startup.md, "The first paint against the plain
// page, traced"). Tracing slows every step: the figures compare the two
// pages, they are not the bench's. Each visit's whole trace is kept, for
// Chromium's DevTools (Performance panel) or Perfetto.
func BenchmarkStartUpMainThread(b *testing.B) {
	s := startServer(b, nil)
	plain := brotliInFront(b, plainOrigin(b, s.URL))
	alloc := newAllocator(b)
	pages := []struct{ name, url string }{{"app", s.URL + "/"}, {"plain", plain + "/web/bench/plain.html"}}
	warmUp(b, alloc, pages[0].url, pages[1].url)
	type visit struct {
		t      startTimes
		events []traceEvent
	}
	got := map[string]visit{} // page + " " + visit
	for range b.N {
		for _, pg := range pages {
			tr := &tabTrace{}
			startVisits(b, alloc, pg.url, startProfiles[0], func(ctx context.Context, which string) startTimes {
				var t startTimes
				events, raw := tr.record(b, ctx, func() { t = startAfterNavigation(b, ctx, pg.url) })
				os.WriteFile(filepath.Join(artifactDir(b), "startmain-"+pg.name+"-"+which+".json"), raw, 0o644)
				got[pg.name+" "+which] = visit{t, events}
				return t
			})
		}
	}
	var out strings.Builder
	out.WriteString("Under tracing (every step slower than in make bench), ms of each thread's own time.\n")
	for _, which := range []string{"cold", "next"} {
		app, js := got["app "+which], got["plain "+which]
		pa, err := mainThreadSpans(app.events, "riskchart:drawn")
		if err != nil {
			b.Fatalf("the app's %s trace: %v", which, err)
		}
		pp, err := mainThreadSpans(js.events, "riskchart:drawn")
		if err != nil {
			b.Fatalf("the plain page's %s trace: %v", which, err)
		}
		fmt.Fprintf(&out, "\n%s visit: navigation to the first candles (app %.0f ms, plain page %.0f ms)\n", which, app.t.Drawn, js.t.Drawn)
		writeBreakdowns(&out, []string{"app", "plain"}, pa.breakdown(0, app.t.Drawn), pp.breakdown(0, js.t.Drawn))
		fmt.Fprintf(&out, "\n%s visit, the app: first candles to go-app's loader gone (%.0f → %.0f ms)\n", which, app.t.Drawn, app.t.Running)
		writeBreakdowns(&out, []string{"app"}, pa.breakdown(app.t.Drawn, app.t.Running))
	}
	os.WriteFile(filepath.Join(artifactDir(b), "startmain.txt"), []byte(out.String()), 0o644)
}

// tabTrace records Chromium's trace of one tab, one visit at a time.
type tabTrace struct {
	mu        sync.Mutex
	listening bool
	events    []json.RawMessage
	done      chan struct{}
}

// traceCategories are what the breakdown reads, and what DevTools'
// Performance panel records.
var traceCategories = []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame",
	"toplevel", "blink", "blink.user_timing", "loading", "navigation", "v8", "v8.execute", "disabled-by-default-v8.compile", "v8.wasm"}

// record traces the tab while visit runs, and returns the trace's events
// and the trace as DevTools saves it.
func (tr *tabTrace) record(b testing.TB, ctx context.Context, visit func()) ([]traceEvent, []byte) {
	tr.mu.Lock()
	tr.events, tr.done = nil, make(chan struct{})
	if !tr.listening {
		tr.listening = true
		chromedp.ListenTarget(ctx, func(ev any) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			switch e := ev.(type) {
			case *tracing.EventDataCollected:
				for _, v := range e.Value {
					tr.events = append(tr.events, json.RawMessage(v))
				}
			case *tracing.EventTracingComplete:
				close(tr.done)
			}
		})
	}
	tr.mu.Unlock()
	start := tracing.Start().WithTraceConfig(&tracing.TraceConfig{IncludedCategories: traceCategories}).WithTransferMode(tracing.TransferModeReportEvents)
	if err := chromedp.Run(ctx, start); err != nil {
		b.Fatalf("starting the trace: %v", err)
	}
	visit()
	if err := chromedp.Run(ctx, tracing.End()); err != nil {
		b.Fatalf("ending the trace: %v", err)
	}
	<-tr.done
	tr.mu.Lock()
	defer tr.mu.Unlock()
	raw, err := json.Marshal(map[string]any{"traceEvents": tr.events})
	if err != nil {
		b.Fatal(err)
	}
	events := make([]traceEvent, len(tr.events))
	for i, r := range tr.events {
		if err := json.Unmarshal(r, &events[i]); err != nil {
			b.Fatalf("reading the trace's event %.200s: %v", r, err)
		}
	}
	return events, raw
}

// traceEvent is one event of Chromium's trace event format: a complete
// event (ph "X") lasts dur µs from ts µs; a metadata event (ph "M") names
// its thread. Its args differ from event to event: they are read only
// where the breakdown needs them.
type traceEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// threadName is the name a thread_name event gives its thread.
func (e traceEvent) threadName() string {
	var a struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(e.Args, &a) != nil {
		return ""
	}
	return a.Name
}

// markTime is the time a user-timing mark's event gives it in its page's
// clock: ms since the page's navigation; ok is false for any other event.
func (e traceEvent) markTime() (ms float64, ok bool) {
	var a struct {
		Data struct {
			StartTime *float64 `json:"startTime"`
		} `json:"data"`
	}
	if e.Ph != "I" && e.Ph != "R" || json.Unmarshal(e.Args, &a) != nil || a.Data.StartTime == nil {
		return 0, false
	}
	return *a.Data.StartTime, true
}

// traceSpans is a page's trace as the breakdown reads it: every complete
// event's own time (its duration less its children's), in ms since the
// page's navigation, on the page's main thread, its renderer's other
// threads, and other processes.
type traceSpans struct {
	main, renderer, others []ownTime
}

// ownTime is the time an event spent outside its children, and when it began.
type ownTime struct {
	name    string
	at, own float64 // ms
}

// mainThreadSpans finds the page in events by a mark it left (both pages
// mark riskchart:drawn) and splits the trace's complete events by thread.
// The mark's event is in the page's renderer and gives its time since the
// page's navigation. Chromium's navigationStart event is not enough: a
// cold visit that commits in a new renderer process can leave only the old
// process's, with no URL.
func mainThreadSpans(events []traceEvent, mark string) (traceSpans, error) {
	pid, navigation, found := 0, 0.0, false // the page's renderer, and its navigation in the trace's clock (µs)
	for _, e := range events {
		if e.Name != mark {
			continue
		}
		if ms, ok := e.markTime(); ok {
			pid, navigation, found = e.Pid, e.Ts-ms*1000, true
			break
		}
	}
	if !found {
		return traceSpans{}, fmt.Errorf("no mark %s in the trace", mark)
	}
	type thread struct{ pid, tid int }
	mainThread := thread{-1, -1}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "thread_name" && e.Pid == pid && e.threadName() == "CrRendererMain" {
			mainThread = thread{e.Pid, e.Tid}
		}
	}
	if mainThread.pid < 0 {
		return traceSpans{}, fmt.Errorf("no main thread named in the renderer that marked %s", mark)
	}
	byThread := map[thread][]traceEvent{}
	for _, e := range events {
		if e.Ph == "X" {
			byThread[thread{e.Pid, e.Tid}] = append(byThread[thread{e.Pid, e.Tid}], e)
		}
	}
	var s traceSpans
	for th, evs := range byThread {
		own := ownTimes(evs, navigation)
		switch {
		case th == mainThread:
			s.main = append(s.main, own...)
		case th.pid == pid:
			s.renderer = append(s.renderer, own...)
		default:
			s.others = append(s.others, own...)
		}
	}
	return s, nil
}

// ownTimes is each of one thread's complete events with its own time: its
// duration less that of the events nested in it. Times are ms since origin
// (µs).
func ownTimes(evs []traceEvent, origin float64) []ownTime {
	slices.SortStableFunc(evs, func(a, b traceEvent) int { // parents before their children
		return cmp.Or(cmp.Compare(a.Ts, b.Ts), cmp.Compare(b.Dur, a.Dur))
	})
	out := make([]ownTime, len(evs))
	var open []int // indexes of the events enclosing the current one
	for i, e := range evs {
		for len(open) > 0 {
			top := evs[open[len(open)-1]]
			if e.Ts < top.Ts+top.Dur {
				break
			}
			open = open[:len(open)-1]
		}
		out[i] = ownTime{name: e.Name, at: (e.Ts - origin) / 1000, own: e.Dur / 1000}
		if len(open) > 0 {
			out[open[len(open)-1]].own -= e.Dur / 1000
		}
		open = append(open, i)
	}
	return out
}

// traceKinds sorts an event, by its name, into what the time went to; the
// first kind with a matching prefix wins, and what none matches is
// "other": mostly the tasks' own scheduling and messages. The names are
// Chromium's (Blink's and V8's trace events).
var traceKinds = []struct {
	kind     string
	prefixes []string
}{
	{"WebAssembly compile and instantiate", []string{"wasm.", "v8.wasm.", "v8.newInstance"}},
	{"JavaScript parse and compile", []string{"V8.Compile", "V8.Parse", "V8.PreParse", "v8.compile", "v8.parseOnBackground", "BackgroundJSStreamManager",
		"FlushInstructionCache", "V8.Maglev", "V8.FinalizeMaglev", "V8.Optimize", "V8.Deoptimize", "V8.TurboFan", "V8.BytecodeBudgetInterrupt", "V8.Sparkplug"}},
	{"garbage collection", []string{"V8.GC", "MinorGC", "MajorGC", "BlinkGC", "V8.GCScavenger", "V8.GCFinalizeMC"}},
	{"HTML parse", []string{"ParseHTML", "HTMLDocumentParser", "TextResourceDecoder", "Document::FinishedParsing"}},
	{"style and layout", []string{"UpdateLayoutTree", "Layout", "Document::UpdateStyle", "Document::updateStyle", "Document::recalcStyle", "Blink.Style",
		"Blink.Layout", "Blink.ForcedStyleAndLayout", "LocalFrameView::UpdateStyleAndLayout", "LocalFrameView::layout", "LocalFrameView::performLayout", "ParseAuthorStyleSheet",
		"Document::updateActiveStyle", "RuleSet::", "InlineNode::"}},
	{"paint and commit", []string{"Paint", "PrePaint", "Layerize", "Commit", "UpdateLayer", "Blink.Paint", "Blink.PrePaint", "CanvasRenderingContext2D", "Canvas2D",
		"RasterTask", "BeginMainThreadFrame", "WebFrameWidgetImpl::BeginMainFrame", "Blink.Animate", "PageAnimator", "LocalFrameView::RunPaintLifecyclePhase",
		"Blink.CompositingInputs"}},
	{"script and WebAssembly running", []string{"v8.run", "v8.callFunction", "FunctionCall", "EvaluateScript", "RunMicrotasks", "TimerFire", "EventDispatch",
		"FireAnimationFrame", "FireIdleCallback", "V8.StackGuard", "V8.HandleInterrupts", "V8.Execute", "AsyncTask Run", "v8.evaluateModule"}},
	{"navigation and loading", []string{"RenderFrameImpl::", "FrameLoader::", "DocumentLoader::", "ResourceFetcher", "LocalWindowProxy", "V8.DeserializeContext",
		"ResourceSendRequest", "ResourceReceive", "ResourceFinish", "NavigationBodyLoader", "ResponseBodyLoader", "AgentSchedulingGroup::", "ContextCreatedNotification"}},
}

func traceKind(name string) string {
	for _, k := range traceKinds {
		for _, p := range k.prefixes {
			if strings.HasPrefix(name, p) {
				return k.kind
			}
		}
	}
	return "other"
}

// breakdown is where one span of a page's start went, in ms by kind: on
// its main thread (and how long that thread had nothing to do), on its
// renderer's other threads, and in the other processes.
type breakdown struct {
	span                   float64
	main, renderer, others map[string]float64
	mainBusy               float64
}

// breakdown adds up the own time of the events that began in [from, to)
// ms, by kind.
func (s traceSpans) breakdown(from, to float64) breakdown {
	sum := func(ts []ownTime) (map[string]float64, float64) {
		m, total := map[string]float64{}, 0.0
		for _, t := range ts {
			if t.at >= from && t.at < to && t.own > 0 {
				m[traceKind(t.name)] += t.own
				total += t.own
			}
		}
		return m, total
	}
	bd := breakdown{span: to - from}
	bd.main, bd.mainBusy = sum(s.main)
	bd.renderer, _ = sum(s.renderer)
	bd.others, _ = sum(s.others)
	return bd
}

// writeBreakdowns writes the breakdowns side by side, one column a page.
func writeBreakdowns(out *strings.Builder, names []string, bds ...breakdown) {
	row := func(label string, f func(breakdown) float64) {
		fmt.Fprintf(out, "  %-60s", label)
		for _, bd := range bds {
			fmt.Fprintf(out, " %8.0f", f(bd))
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(out, "  %-60s", "")
	for _, n := range names {
		fmt.Fprintf(out, " %8s", n)
	}
	out.WriteString("\n")
	kinds := []string{}
	for _, k := range traceKinds {
		kinds = append(kinds, k.kind)
	}
	kinds = append(kinds, "other")
	for _, k := range kinds {
		row("main thread: "+k, func(bd breakdown) float64 { return bd.main[k] })
	}
	row("main thread: nothing to do", func(bd breakdown) float64 { return max(0, bd.span-bd.mainBusy) })
	for _, k := range kinds {
		if slices.ContainsFunc(bds, func(bd breakdown) bool { return bd.renderer[k] >= 1 }) {
			row("renderer's other threads: "+k, func(bd breakdown) float64 { return bd.renderer[k] })
		}
	}
	row("other processes (browser, network, GPU)", func(bd breakdown) float64 {
		total := 0.0
		for _, v := range bd.others {
			total += v
		}
		return total
	})
}

// TestTraceBreakdown checks the breakdown's arithmetic on a made-up trace:
// own times inside nested events, the span's bounds, the threads' split.
func TestTraceBreakdown(t *testing.T) {
	const nav = 1_000_000 // µs
	ev := func(name string, pid, tid int, at, dur float64) traceEvent {
		return traceEvent{Name: name, Ph: "X", Pid: pid, Tid: tid, Ts: nav + at*1000, Dur: dur * 1000}
	}
	named := func(pid, tid int, name string) traceEvent {
		return traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: json.RawMessage(`{"name":"` + name + `"}`)}
	}
	mark := func(pid int, name, args string) traceEvent {
		return traceEvent{Name: name, Ph: "I", Pid: pid, Tid: 1, Ts: nav + 150_000, Args: json.RawMessage(args)}
	}
	// The page's mark, 150 ms after its navigation; the same name without
	// a time; another mark in another renderer.
	drawn := mark(7, "riskchart:drawn", `{"data":{"startTime":150}}`)
	odd := mark(8, "riskchart:drawn", `{"data":"not an object"}`)
	other := mark(9, "riskchart:other", `{"data":{"startTime":20}}`)
	events := []traceEvent{
		named(7, 1, "CrRendererMain"), named(7, 2, "ThreadPoolForegroundWorker"), named(3, 9, "CrBrowserMain"), odd, drawn, other,
		// The main thread: a task of 100 ms holding a script (60 ms) that
		// compiles for 20 ms and forces a layout of 10 ms.
		ev("RunTask", 7, 1, 10, 100),
		ev("EvaluateScript", 7, 1, 12, 60),
		ev("V8.CompileCode", 7, 1, 15, 20),
		ev("Layout", 7, 1, 40, 10),
		ev("Paint", 7, 1, 115, 5),
		ev("RunTask", 7, 1, 300, 50), // after the span
		// Another thread of the renderer, and another process.
		ev("wasm.ValidateFunctionsStreaming", 7, 2, 20, 30),
		ev("ThreadControllerImpl::RunTask", 3, 9, 50, 8),
	}
	s, err := mainThreadSpans(events, "riskchart:drawn")
	if err != nil {
		t.Fatal(err)
	}
	bd := s.breakdown(0, 200)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"the task's own time", bd.main["other"], 40},
		{"the script's own time", bd.main["script and WebAssembly running"], 30},
		{"compile", bd.main["JavaScript parse and compile"], 20},
		{"layout", bd.main["style and layout"], 10},
		{"paint", bd.main["paint and commit"], 5},
		{"busy", bd.mainBusy, 105},
		{"the renderer's other thread", bd.renderer["WebAssembly compile and instantiate"], 30},
		{"other processes", bd.others["other"], 8},
	} {
		if c.got != c.want {
			t.Errorf("%s: %.1f ms, want %.1f", c.name, c.got, c.want)
		}
	}
	if later := s.breakdown(200, 400); later.mainBusy != 50 {
		t.Errorf("the span after: %.1f ms busy, want 50", later.mainBusy)
	}
	if _, err := mainThreadSpans(events, "riskchart:none"); err == nil {
		t.Error("a trace without the page's mark: no error")
	}
}

package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// Benchmarks for the debugger's figures in docs/debug.md, "Speed":
//
//	go test ./tui -run '^$' -bench . -benchmem
//
// bigResult is about 50 MB holding 1,000,000 JSON values: 90,909 records
// of ten fields each, in one array.
var bigResult = sync.OnceValue(func() []byte {
	var b strings.Builder
	b.Grow(52 << 20)
	b.WriteString(`{"records": [`)
	for i := range 90909 {
		if i > 0 {
			b.WriteByte(',')
		}
		s := strconv.Itoa(i)
		b.WriteString(`{"id": ` + s + `, "name": "record number ` + s + ` of the big result", "email": "user` + s +
			`@example.com", "active": true, "score": 0.` + s + `, "team": "team-` + s + `-with-a-rather-longish-team-name", "city": "Somewhere in the middle of a large country, far from the sea",` +
			` "note": "a longer string of about two hundred and fifty characters, so that a million values weigh about fifty megabytes, as a real result full of descriptions, messages and other prose would; it says nothing, and says it at some length, until here", "tag": "no tag at all, here", "level": ` + s + `}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
})

func TestBigResultShape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 50 MB result")
	}
	src := bigResult()
	if !json.Valid(src) {
		t.Fatal("invalid")
	}
	d, err := parseDoc(src)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.nodes); n < 1_000_000 || n > 1_000_100 {
		t.Fatalf("%d values", n)
	}
	if len(src) < 50_000_000 {
		t.Fatalf("%d bytes", len(src))
	}
}

// BenchmarkBigResultOnScreen: from a step's raw result to its tree drawn,
// opened two levels deep (parse, fold, first screen). mem-x is the memory
// the tree adds, as a multiple of the result's size (the result's own bytes
// are shared, not copied).
func BenchmarkBigResultOnScreen(b *testing.B) {
	src := bigResult()
	st := plainStyles()
	b.SetBytes(int64(len(src)))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var keep *tree
	for b.Loop() {
		d, err := parseDoc(src)
		if err != nil {
			b.Fatal(err)
		}
		keep = newTree(d, &foldState{})
		keep.setSize(120, 40)
		_ = keep.view(st)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)+int64(len(src)))/float64(len(src)), "mem-x")
	runtime.KeepAlive(keep)
}

// bigModel is a debugger at 120x40 whose one step returned bigResult.
func bigModel(b *testing.B) *testModel {
	src := bigResult()
	cat, err := plan.NewCatalog("bench", []*plan.Tool{{Name: "big", SharableAll: true}},
		plan.CallerFunc(func(context.Context, string, json.RawMessage) (plan.ToolResult, error) {
			return plan.ToolResult{Value: src}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	p := plan.Load("big.json", []byte(`[{"id": "big", "tool": "big", "args": {}}]`), plan.Limits{})
	m := newModel(context.Background(), runner.NewDebugger(p, cat, runner.DebugOptions{DeferValidation: true}), Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: b}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	tm.press("n", "tab", "tab")
	if m.results.tree == nil {
		b.Fatal("no tree")
	}
	return tm
}

// BenchmarkKeyWithBigResult: one key through Update and View, with the
// 1,000,000-value result open in the tree.
func BenchmarkKeyWithBigResult(b *testing.B) {
	tm := bigModel(b)
	for _, keys := range [][]string{{"j"}, {"k"}, {"pgdown"}, {"pgup"}, {"h"}, {"l"}, {"J"}, {"G"}, {"g"}, {"1"}, {"2"}} {
		b.Run(strings.Join(keys, ""), func(b *testing.B) {
			for b.Loop() {
				for _, k := range keys {
					tm.Update(keyMsg(k))
				}
				_ = tm.View()
			}
		})
	}
}

// BenchmarkStepsPane: moving through the steps pane and drawing the
// screen, for plans of 10, 100 and 10,000 steps, every step after the first
// reading the first (so its data-flow marks cover the whole plan).
func BenchmarkStepsPane(b *testing.B) {
	for _, n := range []int{10, 100, 10000} {
		var s strings.Builder
		s.WriteString("[")
		for i := range n {
			if i > 0 {
				s.WriteString(",")
			}
			id := "s" + strconv.Itoa(i)
			arg := strconv.Itoa(i)
			if i > 0 {
				arg = `{"output_by_reference": {"s0": ["value"]}}`
			}
			s.WriteString(`{"id": "` + id + `", "tool": "echo", "args": {"value": ` + arg + `}}`)
		}
		s.WriteString("]")
		p := plan.Load("p.json", []byte(s.String()), plan.Limits{})
		m := newModel(context.Background(), runner.NewDebugger(p, nil, runner.DebugOptions{DeferValidation: true}), Options{}, plainStyles())
		m.timers = false
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		b.Run(strconv.Itoa(n)+"-steps", func(b *testing.B) {
			i := 0
			for b.Loop() {
				k := "j"
				if i%50 == 49 {
					k = "g"
				}
				i++
				m.Update(keyMsg(k))
				_ = m.View()
			}
		})
	}
}

// BenchmarkSearchBigResult: a search of the 50 MB result (it runs in a
// command, off the key path), any case and exact case.
func BenchmarkSearchBigResult(b *testing.B) {
	d, err := parseDoc(bigResult())
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"record number 4242 ", "Somewhere"} {
		b.Run(q, func(b *testing.B) {
			b.SetBytes(int64(len(d.src)))
			for b.Loop() {
				if len(runSearch(d, q)) == 0 {
					b.Fatal("no match")
				}
			}
		})
	}
}

// BenchmarkFirstFrame: from a plan's bytes (the file read) to the
// debugger's first screen, as `planctl debug` opens it (plan.Load, the
// model, the terminal's size, the first View), for every plan shape of
// plantest at 1k, 10k and 100k steps. The plan's check (facts.go) is not
// part of it: it runs in a command once the screen is drawn. frame-ms is the
// part after plan.Load. The whole process in a terminal:
// .ci/bench/debugframe.sh.
//
//	go test ./tui -run '^$' -bench 'FirstFrame/fan-in/100k' -benchtime 3x -cpuprofile cpu.out
func BenchmarkFirstFrame(b *testing.B) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range plantest.Shapes {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%dk", s.Name, n/1000), func(b *testing.B) {
				src := s.Gen(n)
				lim := plan.Limits{MaxBytes: int64(len(src))}
				want := fmt.Sprintf("Steps (%d)", n)
				b.SetBytes(int64(len(src)))
				var frame time.Duration
				for b.Loop() {
					p := plan.Load("shape.json", src, lim)
					p.AcceptSchemaHint()
					t0 := time.Now()
					m := newModel(context.Background(), runner.NewDebugger(p, cat, runner.DebugOptions{Limits: lim, DeferValidation: true}), Options{}, plainStyles())
					m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
					if v := m.View(); !strings.Contains(v, want) {
						b.Fatalf("the first frame lacks %q:\n%s", want, v)
					}
					frame += time.Since(t0)
				}
				b.ReportMetric(frame.Seconds()*1000/float64(b.N), "frame-ms")
			})
		}
	}
}

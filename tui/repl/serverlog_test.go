package repl

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// From a pipe, the servers' log lines are printed on the error stream
// between commands, each once, their hidden characters escaped so that a
// line stays one line; log lists the last N with their times, and says
// what the ring dropped.
func TestServerLogLines(t *testing.T) {
	logs := runner.NewServerLogs(3)
	at := time.Date(2026, 12, 6, 8, 0, 1, 0, time.UTC)
	logs.Add(plan.ServerLog{Time: at, Server: "fs", Level: "info", Text: "started"})
	p := plan.Load("p.json", []byte(`[{"id": "a", "tool": "db_stats", "args": {"database": "prod"}}]`), plan.Limits{})
	d := runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{ServerLogs: logs})
	var out, errb bytes.Buffer
	// A command in between adds lines, as a server would while a step
	// runs; the ring then holds the last 3 of 5.
	s := NewSession(d, Options{Out: &out, Err: &errb})
	d.SetOnEvent(func(e runner.Event) {
		s.onEvent(e)
		if e.Kind == runner.EventStepFinished {
			for i := range 4 {
				logs.Add(plan.ServerLog{Time: at.Add(time.Second), Server: "git", Level: "warning", Logger: "repo", Text: fmt.Sprintf("line %d\n\x1b[31mred", i)})
			}
		}
	})
	// As Run reads a pipe: the lines not printed yet, then a command.
	for _, c := range []string{"log", "next", "log 2", "log x"} {
		s.logs.flush()
		s.Exec(context.Background(), c)
	}
	s.logs.flush()
	wantErr := "[log fs info] started\n" +
		"[log] 1 server log line(s) dropped: the debugger keeps the last 3\n[log git warning repo] line 1\\n\\u001b[31mred\n[log git warning repo] line 2\\n\\u001b[31mred\n[log git warning repo] line 3\\n\\u001b[31mred\n"
	if !strings.HasPrefix(errb.String(), wantErr) {
		t.Errorf("error stream:\n%q\nwant it to start with\n%q", errb.String(), wantErr)
	}
	if !strings.Contains(errb.String(), "log x: give a count of lines") {
		t.Errorf("log x: %q", errb.String())
	}
	for _, want := range []string{
		"08:00:01.000 [log fs info] started\n",
		"(3 earlier line(s) not shown)\n08:00:02.000 [log git warning repo] line 2\\n\\u001b[31mred\n08:00:02.000 [log git warning repo] line 3",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log's output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Count(errb.String(), "started") != 1 {
		t.Errorf("a line was printed twice:\n%s", errb.String())
	}
}

package runner_test

import (
	"fmt"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

func texts(ls []plan.ServerLog) string {
	s := ""
	for _, l := range ls {
		s += l.Text + " "
	}
	return s
}

// The ring keeps the newest lines, numbered in the order they came; Since
// says what was dropped before a reader got to it, and a subscriber is
// woken once for a burst.
func TestServerLogsRing(t *testing.T) {
	l := runner.NewServerLogs(3)
	notify, ch := runner.Notifier()
	cancel := l.Subscribe(notify)
	for i := range 5 {
		l.Add(plan.ServerLog{Server: "s", Level: "info", Text: fmt.Sprint(i)})
	}
	select {
	case <-ch:
	default:
		t.Fatal("the subscriber was not notified")
	}
	select {
	case <-ch:
		t.Fatal("a burst of lines signalled more than once")
	default:
	}
	lines, dropped := l.Lines()
	if texts(lines) != "2 3 4 " || dropped != 2 {
		t.Errorf("Lines: %q, %d dropped", texts(lines), dropped)
	}
	lines, next, missed := l.Since(1)
	if texts(lines) != "2 3 4 " || next != 5 || missed != 1 {
		t.Errorf("Since(1): %q next %d missed %d", texts(lines), next, missed)
	}
	lines, next, missed = l.Since(4)
	if texts(lines) != "4 " || next != 5 || missed != 0 {
		t.Errorf("Since(4): %q next %d missed %d", texts(lines), next, missed)
	}
	if lines, next, _ = l.Since(5); len(lines) != 0 || next != 5 {
		t.Errorf("Since(5): %q next %d", texts(lines), next)
	}
	cancel()
	l.Add(plan.ServerLog{Text: "5"})
	select {
	case <-ch:
		t.Error("notified after cancel")
	default:
	}
	if runner.NewServerLogs(0) == nil {
		t.Fatal("NewServerLogs(0)")
	}
}

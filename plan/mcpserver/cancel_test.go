package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/mcpserver"
)

// A request the client cancelled (notifications/cancelled) gets no
// answer over stdio, as MCP asks: the plan stops at its running step and
// nothing with its id is written; the requests after it are answered.
func TestStdioNoAnswerToACancelledRequest(t *testing.T) {
	b, cat := newBlocking(t)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads lines until one holds want, and returns those before it.
	until := func(want string) []string {
		t.Helper()
		var seen []string
		for l := range lines {
			if strings.Contains(l, want) {
				return seen
			}
			seen = append(seen, l)
		}
		t.Fatalf("no line with %s; got:\n%s", want, strings.Join(seen, "\n"))
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	until(`"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, slowPlan))
	<-b.started
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}`)
	if err := <-b.ended; err == nil {
		t.Fatal("the tool call was not cancelled")
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	before := until(`"id":3`)
	inW.Close() // the end of input waits for every answer, the dropped one counted
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var after []string
	for l := range lines {
		after = append(after, l)
	}
	for _, l := range append(before, after...) {
		if strings.Contains(l, `"id":2`) {
			t.Errorf("the cancelled request was answered: %.300s", l)
		}
	}
}

package editortest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestLSPSurvivesBadFrames writes, on `planctl lsp`'s standard input, the
// frames no editor's library would send but a broken client or a stray
// print into the pipe does: a body that is not JSON, JSON that is not a
// message, a Content-Length that is not a number, a header that is not
// one, a length beyond what a message may have, a header block without a
// length. Each is answered with a JSON-RPC error whose id is null, and the
// server goes on: initialize, shutdown and exit work after them, exit
// code 0. Before, the first bad body ended the server.
func TestLSPSurvivesBadFrames(t *testing.T) {
	t.Parallel()
	cmd := clitest.Command(binary, "lsp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, stdout := clitest.Pipes(t, cmd)
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	read := func() reply {
		t.Helper()
		n := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("the server's output ended: %v\nstderr: %s", err, stderr.String())
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m reply
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return m
	}
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	for _, tc := range []struct {
		name, raw, want string
		code            int
	}{
		{"a body that is not JSON", frame(`{"jsonrpc": "2.0", "id": 1, "method": `), "not JSON", -32700},
		{"JSON that is not a message", frame(`[1, 2]`), "invalid request", -32600},
		{"a length that is not a number", "Content-Length: ten\r\n\r\n" + `{"jsonrpc": "2.0", "method": "x"}`, `bad Content-Length "ten"`, -32700},
		{"a header that is not one", "Content-Length: 2\r\nno colon here\r\n\r\n{}", "bad header", -32700},
		// A frame of unknown length is skipped up to the next
		// Content-Length header: what follows each of these two has one.
		{"no length", "Content-Type: application/json\r\n\r\n{}", "without a Content-Length", -32700},
		{"a length beyond a message's", "Content-Length: 99999999999999\r\n\r\n{}", "more than", -32700},
		{"an empty body", "Content-Length: 0\r\n\r\n", "not JSON", -32700},
	} {
		if _, err := io.WriteString(stdin, tc.raw); err != nil {
			t.Fatal(err)
		}
		m := read()
		if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != "null" || !strings.Contains(m.Error.Message, tc.want) {
			t.Errorf("%s: %+v %+v, want code %d, id null, %q", tc.name, m, m.Error, tc.code, tc.want)
		}
	}
	io.WriteString(stdin, frame(`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}`))
	if m := read(); m.Error != nil || !strings.Contains(string(m.Result), `"capabilities"`) || string(m.ID) != "1" {
		t.Fatalf("initialize after the bad frames: %+v", m)
	}
	io.WriteString(stdin, frame(`{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}`))
	if m := read(); m.Error != nil || string(m.ID) != "2" {
		t.Fatalf("shutdown: %+v", m)
	}
	io.WriteString(stdin, frame(`{"jsonrpc": "2.0", "method": "exit"}`))
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after shutdown: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "a bad frame was skipped") {
		t.Errorf("the bad frames are not in the log:\n%s", stderr.String())
	}
}

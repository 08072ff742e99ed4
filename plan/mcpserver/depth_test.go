package mcpserver

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want bool
	}{
		{`[[1]]`, 2, false},
		{`[[[1]]]`, 2, true},
		{`{"a":{"b":[]}}`, 2, true},
		{`["[[[[", "\"[[["]`, 1, false}, // brackets in strings do not count
	} {
		if got := tooDeep([]byte(c.in), c.max); got != c.want {
			t.Errorf("tooDeep(%s, %d) = %v", c.in, c.max, got)
		}
	}
}

// The stdio guard answers a too-deep line itself and passes the others on.
func TestDepthGuard(t *testing.T) {
	var out bytes.Buffer
	deep := strings.Repeat("[", MaxRequestDepth+1) + strings.Repeat("]", MaxRequestDepth+1)
	g := &depthGuard{r: newReader("{\"a\":1}\n" + deep + "\n{\"b\":2}\n"), out: &countingWriter{w: &out}}
	got, _ := io.ReadAll(g)
	if string(got) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Errorf("passed on %q", got)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || !strings.Contains(out.String(), "more than 1100 levels deep") {
		t.Errorf("answered %q", out.String())
	}
}

func newReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

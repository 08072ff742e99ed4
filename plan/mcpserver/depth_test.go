package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
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

// Over stdio a too-deep line is answered with a parse error, and the
// lines around it are served.
func TestDepthOverStdio(t *testing.T) {
	s := New(Options{Catalog: mockserver.Demo()})
	deep := strings.Repeat("[", MaxRequestDepth+1) + strings.Repeat("]", MaxRequestDepth+1)
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + deep + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request nests arrays and objects more than 1100 levels deep`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
}

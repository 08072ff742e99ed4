package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/planctl/planctl/plan/jsontext"
)

// MaxRequestDepth bounds how deep a request's arrays and objects nest. A
// plan may nest 1000 levels (jsontext.Parse says so precisely); the
// JSON-RPC envelope adds a few. Past this the request is refused before
// mcp-go decodes it: encoding/json would refuse it past 10,000 levels with
// a bare "not valid json", and recursion that deep costs stack and time.
const MaxRequestDepth = 1100

// depthMessage is the parse error a too-deep request gets.
var depthMessage = fmt.Sprintf("Parse error: the request nests arrays and objects more than %d levels deep; a plan may nest at most 1000: flatten its values", MaxRequestDepth)

// tooDeep reports whether the JSON text b nests arrays and objects more
// than max levels deep.
func tooDeep(b []byte, max int) bool { return jsontext.Depth(b) > max }

// parseErrorLine is the JSON-RPC answer to a request that was not read.
func parseErrorLine(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": msg}})
	return append(b, '\n')
}

// depthGuard passes stdio lines through to mcp-go, answering those that
// nest too deep itself.
type depthGuard struct {
	r   *bufio.Reader
	out io.Writer // the countingWriter mcp-go writes to
	buf []byte
	// wire, when set, sees each line first (Concierge's wire, wire.go).
	wire func([]byte) ([]byte, []byte)
	// asked, when set, counts each request read, and reports false for
	// one the client cancelled before sending it, which is dropped;
	// atEOF, when set, runs before the end of input is passed on (stdio:
	// wait for the answers).
	asked func(line []byte) bool
	atEOF func()
}

func (g *depthGuard) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		line, err := g.r.ReadBytes('\n')
		if len(line) > 0 {
			deep := tooDeep(line, MaxRequestDepth)
			if deep {
				g.out.Write(parseErrorLine(depthMessage)) // one whole message, under the writer's lock
			} else if g.asked != nil && !g.asked(line) {
				// Cancelled before it came: neither run nor answered.
			} else if g.wire == nil {
				g.buf = line
			} else if pass, reply := g.wire(line); reply != nil {
				g.out.Write(reply)
			} else {
				g.buf = pass
			}
		}
		if err != nil && len(g.buf) == 0 {
			if err == io.EOF && g.atEOF != nil {
				g.atEOF()
				g.atEOF = nil
			}
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
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
	return pywire.Error(nil, []byte("null"), mcp.PARSE_ERROR, msg, nil)
}

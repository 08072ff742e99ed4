package runner

import (
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// The size of a plan's MCP answer, counted without writing it.
//
// A served plan's answer holds its response twice: as text, the
// json.dumps(indent=2) form Concierge sends (pyvalue.DumpsIndentString),
// escaped into a JSON string; and as structuredContent, compact. Go's
// encoding/json, which writes both (and planctl's direct path, byte for
// byte the same), escapes <, > and & for HTML as six bytes each. So the
// answer can be many times the results it carries: a string of "<&>" is
// about 19 bytes a character, and indentation adds two bytes a level to
// every line, a result nested 500 levels deep about a kilobyte an
// element. MaxResponse counts the answer this way (pyvalue.Sizes, one
// pass over each result), so that a small plan cannot make a server write
// a gigabyte.

// answerSize is what a JSON value adds to an MCP answer written at depth
// of the response's text form: its text escaped, and its structuredContent
// (pyvalue.Sizes).
func answerSize(raw []byte, depth int) int64 {
	c := pyvalue.SizesOf(raw, depth)
	return c.Escaped + c.Compact
}

// AnswerSize is the bytes a response (Run.Response) takes in a served
// plan's MCP answer: its text form, escaped, and its structuredContent,
// the quotes around the text included. What the answer holds besides
// (its JSON-RPC envelope) does not depend on the plan.
func AnswerSize(resp []byte) int64 { return answerSize(resp, 0) + 2 }

// The fixed parts of a response in the answer: the response around its
// steps ("completed", the longer status word), and the member of "steps"
// that holds one step, with the comma before it, but not its key and
// result or error. A step's member is written at depth 2 (response,
// "steps", the step) and its result at depth 3.
var (
	answerBase = answerSize([]byte(`{"status":"completed","steps":{}}`), 0) +
		2 + 2 + 2*1 // the text's quotes; "{}" opens on a line of its own once it has members
	answerOK    = answerFrame(`{"status":"ok","result":0}`)
	answerError = answerFrame(`{"status":"error","error":0}`)
)

// answerFrame is what a step's member adds around its key and its value:
// the comma and line break before it, ": " after the key, and the step's
// object, whose value (the 0) is not counted.
func answerFrame(obj string) int64 {
	return (1 + 2 + 2*2) + 1 + // ",\n    " in the text, "," in structuredContent
		2 + 1 + // ": " and ":"
		answerSize([]byte(obj), 2) - 2 // the 0 is the value's, counted apart
}

// stepAnswerSize is what one step adds to its run's answer: its member of
// the response's "steps", counted as if a comma came before it. A run's
// answer is answerBase plus these: AnswerSize of its Response, or at most
// six bytes over it (the first step's comma, in the text and in
// structuredContent, and "completed" counted where the status is
// "partial").
func stepAnswerSize(key string, ok bool, result []byte, errText string) int64 {
	var scratch [64]byte
	k := answerSize(jsontext.AppendJSONString(scratch[:0], key), 0)
	if ok {
		return answerOK + k + answerSize(result, 3)
	}
	return answerError + k + answerSize(jsontext.AppendJSONString(nil, errText), 0)
}

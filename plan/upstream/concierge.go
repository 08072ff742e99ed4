package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// signature matches a tool's signature line in a Concierge execute_plan
// description: two spaces, the name, the parameters in parentheses.
// (Compiled on first use, like paramName and typeName: a process that
// never reads a Concierge tool list does not pay for them as it starts.)
var signature = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^  ([A-Za-z0-9_][A-Za-z0-9_.\-/:]*)\((.*)\)$`)
})

// ParseConcierge recovers the tools behind a Concierge Plan server from the
// description of its execute_plan tool (the form concierge.RenderConcierge
// writes): each signature line gives the parameters in order, with "?" on
// optional ones, their JSON Schema type ("any": none) and [sharable] marks;
// the lines after it give the description; a last "    returns: JSON" line
// gives the output schema. Text before the "AVAILABLE TOOLS:" line (or
// before the first signature) is the server's prose and is skipped.
func ParseConcierge(desc string) ([]*plan.Tool, error) {
	lines := strings.Split(desc, "\n")
	start := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == "AVAILABLE TOOLS:" {
			start = i + 1
		}
	}
	var tools []*plan.Tool
	var cur *plan.Tool
	var body []string
	seen := map[string]bool{}
	finish := func() error {
		if cur == nil {
			return nil
		}
		for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
			body = body[:len(body)-1]
		}
		// The returns line follows the description line, which is empty
		// when the tool has no description: a lone "    returns: ..." line
		// is a description that happens to start so.
		if n := len(body); n > 1 && strings.HasPrefix(body[n-1], "    returns: ") {
			schema := strings.TrimPrefix(body[n-1], "    returns: ")
			// Only what RenderConcierge would print back: a non-empty object.
			if v, err := jsontext.Parse([]byte(schema)); err == nil && v.Kind() == jsontext.Object && v.Len() > 0 {
				cur.OutputSchema = compact([]byte(schema))
				body = body[:n-1]
			}
		}
		if len(body) > 0 {
			body[0] = strings.TrimPrefix(body[0], "    ")
		}
		cur.Description = strings.Join(body, "\n")
		tools = append(tools, cur)
		cur, body = nil, nil
		return nil
	}
	for i := start; i < len(lines); i++ {
		l := lines[i]
		// A signature starts a tool when it opens the list or follows the
		// blank line that separates tools.
		if m := signature().FindStringSubmatch(strings.TrimSuffix(l, "\r")); m != nil && (cur == nil || (len(body) > 0 && body[len(body)-1] == "") || (len(body) == 0 && i > 0 && lines[i-1] == "")) {
			if err := finish(); err != nil {
				return nil, err
			}
			t, err := parseSignature(m[1], m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			if seen[t.Name] {
				return nil, fmt.Errorf("line %d: tool %q is listed twice", i+1, t.Name)
			}
			seen[t.Name] = true
			cur = t
			continue
		}
		if cur != nil {
			body = append(body, l)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(tools) == 0 {
		return nil, errors.New(`no tool signature lines ("  name(param: type [sharable], ...)") found`)
	}
	return tools, nil
}

var (
	paramName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s:,()\[\]?'"]+$`) })
	typeName  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*|\[('[A-Za-z_][A-Za-z0-9_]*'(, '[A-Za-z_][A-Za-z0-9_]*')*)?\])$`)
	})
)

// parseSignature reads "a: string [sharable], b?: integer" into a tool
// whose input schema has those properties in that order.
func parseSignature(name, params string) (*plan.Tool, error) {
	t := &plan.Tool{Name: name, Sharable: map[string]bool{}}
	var props []string
	var required []string
	seenParam := map[string]bool{}
	for _, p := range splitParams(params) {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		pname, typ, ok := strings.Cut(p, ": ")
		if !ok {
			return nil, fmt.Errorf("tool %q: parameter %q is not written as name: type", name, p)
		}
		if strings.HasSuffix(typ, " [sharable]") {
			typ = strings.TrimSuffix(typ, " [sharable]")
			t.Sharable[strings.TrimSuffix(pname, "?")] = true
		}
		if strings.HasSuffix(pname, "?") {
			pname = strings.TrimSuffix(pname, "?")
		} else {
			required = append(required, pname)
		}
		if !paramName().MatchString(pname) {
			return nil, fmt.Errorf("tool %q: %q is not a parameter name", name, pname)
		}
		if !typeName().MatchString(typ) {
			return nil, fmt.Errorf("tool %q: parameter %q has a type planctl cannot read: %q", name, pname, typ)
		}
		if seenParam[pname] {
			return nil, fmt.Errorf("tool %q: parameter %q is listed twice", name, pname)
		}
		seenParam[pname] = true
		key, _ := json.Marshal(pname)
		props = append(props, string(key)+":"+typeSchema(typ))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}`
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		schema += `,"required":` + string(req)
	}
	t.InputSchema = json.RawMessage(schema + "}")
	if !json.Valid(t.InputSchema) {
		return nil, fmt.Errorf("tool %q: its parameters do not make a schema", name)
	}
	return t, nil
}

// splitParams splits at the commas that are not inside brackets (a type may
// be a Python list: "['string', 'null']").
func splitParams(s string) []string {
	var out []string
	depth, last := 0, 0
	for i, r := range s {
		switch r {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}

// typeSchema turns the type Concierge printed back into a property schema.
func typeSchema(typ string) string {
	typ = strings.TrimSpace(typ)
	switch {
	case typ == "any" || typ == "":
		return "{}"
	case strings.HasPrefix(typ, "[") && strings.HasSuffix(typ, "]"):
		var names []string
		for _, e := range strings.Split(typ[1:len(typ)-1], ",") {
			e = strings.Trim(strings.TrimSpace(e), `'"`)
			if e != "" {
				names = append(names, e)
			}
		}
		b, _ := json.Marshal(names)
		return `{"type":` + string(b) + `}`
	}
	b, _ := json.Marshal(typ)
	return `{"type":` + string(b) + `}`
}

// oneStepID is the id of the single step planctl sends a Concierge server.
const oneStepID = "step"

// oneStepPlan wraps one call with resolved, literal arguments as the
// arguments of execute_plan.
func oneStepPlan(tool string, args json.RawMessage) json.RawMessage {
	name, _ := json.Marshal(tool)
	return json.RawMessage(`{"steps":[{"id":"` + oneStepID + `","tool":` + string(name) + `,"args":` + string(args) + `}]}`)
}

// unwrapOneStep reads the response of a one-step plan: the step's result,
// the step's error, or the plan's rejection.
func unwrapOneStep(resp json.RawMessage) (plan.ToolResult, error) {
	var r struct {
		Error *string `json:"error"`
		Steps map[string]struct {
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
			Error  string          `json:"error"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return plan.ToolResult{}, fmt.Errorf("the Concierge Plan server's answer is not a plan response: %w", err)
	}
	if r.Error != nil {
		return plan.ToolResult{IsError: true, Error: *r.Error}, nil
	}
	st, ok := r.Steps[oneStepID]
	switch {
	case !ok:
		return plan.ToolResult{}, fmt.Errorf("the Concierge Plan server's answer has no step %q: %.200s", oneStepID, resp)
	case st.Status == "ok":
		v := st.Result
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		return plan.ToolResult{Value: v}, nil
	default:
		return plan.ToolResult{IsError: true, Error: st.Error}, nil
	}
}

// unwrapRejection reads {"error": "..."} out of a rejected plan's text.
func unwrapRejection(res plan.ToolResult) plan.ToolResult {
	var r struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal([]byte(res.Error), &r) == nil && r.Error != nil {
		res.Error = *r.Error
	}
	return res
}

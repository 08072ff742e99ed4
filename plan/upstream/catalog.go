package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/sources"
)

// buildCatalog turns the raw tools of tools/list into catalog tools, with
// schemas kept byte for byte (compacted) in the server's key order. A
// server that lists only execute_plan is a Concierge Plan server: its
// catalog comes from that tool's description.
func buildCatalog(raw []json.RawMessage, patterns []string, sharableFlag string) ([]*plan.Tool, bool, error) {
	tools := make([]*plan.Tool, 0, len(raw))
	for i, r := range raw {
		var t struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  json.RawMessage `json:"annotations"`
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, false, fmt.Errorf("tools/list: tool %d is not a tool object: %w", i, err)
		}
		if t.Name == "" {
			return nil, false, fmt.Errorf("tools/list: tool %d has no name", i)
		}
		tools = append(tools, &plan.Tool{
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  object(t.InputSchema),
			OutputSchema: object(t.OutputSchema),
			Annotations:  object(t.Annotations),
			Sharable:     map[string]bool{},
		})
	}
	if len(tools) == 1 && tools[0].Name == "execute_plan" {
		inner, err := ParseConcierge(tools[0].Description)
		if err != nil {
			return nil, false, fmt.Errorf("it lists only execute_plan, but its description does not list the tools behind it: %w", err)
		}
		if len(patterns) > 0 {
			if err := sources.ApplySharable(inner, patterns, sharableFlag); err != nil {
				return nil, false, err
			}
		}
		return inner, true, nil
	}
	marked := false
	for _, t := range tools {
		for _, p := range plan.XSharable(t.InputSchema) {
			t.Sharable[p] = true
			marked = true
		}
	}
	switch {
	case len(patterns) > 0:
		if err := sources.ApplySharable(tools, patterns, sharableFlag); err != nil {
			return nil, false, err
		}
	case !marked:
		for _, t := range tools {
			t.SharableAll = true
		}
	}
	return tools, false, nil
}

// sharingPolicy names the policy buildCatalog applied.
func sharingPolicy(tools []*plan.Tool, patterns []string, concierge bool) plan.SharingPolicy {
	switch {
	case len(patterns) > 0:
		return plan.SharingPatterns
	case concierge:
		return plan.SharingMarked
	}
	for _, t := range tools {
		if t.SharableAll {
			return plan.SharingAll
		}
	}
	return plan.SharingMarked
}

// checkPattern rejects a sharable pattern that can never match, before
// the server is started.
func checkPattern(what, pat string) error {
	if !strings.Contains(pat, ".") {
		return fmt.Errorf("%s %q: write TOOL.PARAM, with * globs (e.g. 'create_*.id' or '*.name')", what, pat)
	}
	if _, err := path.Match(pat, ""); err != nil {
		return fmt.Errorf("%s %q is not a valid glob: %w", what, pat, err)
	}
	return nil
}

// object keeps a raw JSON object compacted, and drops absent, null and empty
// values (an empty outputSchema describes nothing).
func object(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, t) != nil {
		return nil
	}
	if b.String() == "{}" {
		return nil
	}
	return b.Bytes()
}

// MapResult maps a raw tools/call result to a plan value: isError
// gives a step error with the result's text; else structuredContent when
// present; else a single text block that parses as JSON gives that JSON;
// else a single text block gives the string; else the content array.
func MapResult(raw json.RawMessage) (plan.ToolResult, error) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return plan.ToolResult{}, err
	}
	if r.IsError {
		return plan.ToolResult{IsError: true, Error: errorText(r.Content)}, nil
	}
	if sc := bytes.TrimSpace(r.StructuredContent); len(sc) > 0 && !bytes.Equal(sc, []byte("null")) {
		return plan.ToolResult{Value: compact(sc)}, nil
	}
	if len(r.Content) == 1 {
		if text, ok := textOf(r.Content[0]); ok {
			if t := strings.TrimSpace(text); t != "" && json.Valid([]byte(t)) {
				return plan.ToolResult{Value: compact([]byte(t))}, nil
			}
			b, _ := json.Marshal(text)
			return plan.ToolResult{Value: b}, nil
		}
	}
	content := r.Content
	if content == nil {
		content = []json.RawMessage{}
	}
	b, _ := json.Marshal(content)
	return plan.ToolResult{Value: compact(b)}, nil
}

func textOf(block json.RawMessage) (string, bool) {
	var b struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(block, &b) != nil || b.Type != "text" || b.Text == nil {
		return "", false
	}
	return *b.Text, true
}

// errorText joins the text blocks of a failed call.
func errorText(content []json.RawMessage) string {
	var parts []string
	for _, c := range content {
		if t, ok := textOf(c); ok {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "the tool failed and gave no text"
	}
	return strings.Join(parts, "\n")
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/planctl/planctl/plan"
)

type jsonRelated struct {
	Location string `json:"location"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
}

type jsonDiag struct {
	Severity   string        `json:"severity"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	Location   string        `json:"location"`
	File       string        `json:"file"`
	Line       int           `json:"line"`
	Column     int           `json:"column"`
	EndLine    int           `json:"end_line"`
	EndColumn  int           `json:"end_column"`
	StepID     string        `json:"step_id,omitempty"`
	StepIndex  *int          `json:"step_index,omitempty"`
	Suggestion string        `json:"suggestion,omitempty"`
	Related    []jsonRelated `json:"related,omitempty"`
}

type jsonEnvelope struct {
	Result      string     `json:"result"`
	Diagnostics []jsonDiag `json:"diagnostics"`
	Summary     Summary    `json:"summary"`
	Truncated   bool       `json:"truncated,omitempty"`
}

// JSON renders the envelope validate --format json prints: result (OK when
// there is no error, else FAIL), the diagnostics, and the summary of all of
// them.
func JSON(w io.Writer, p *plan.Plan, ds []plan.Diagnostic, o Options) error {
	return jsonFiles(w, []File{{Plan: p, Diags: ds}}, o)
}

func jsonFiles(w io.Writer, files []File, o Options) error {
	show, n, total := shown(files, o, true)
	env := jsonEnvelope{Result: "OK", Diagnostics: []jsonDiag{}, Summary: total}
	if env.Summary.Errors > 0 {
		env.Result = "FAIL"
	}
	env.Truncated = n < total.all()
	for p, d := range show {
		jd := jsonDiag{Severity: strings.ToUpper(d.Severity.String()), Code: d.Code, Message: d.Message,
			Location: d.Pointer, File: p.Src.Name, Line: d.Pos().Line, Column: d.Pos().Column,
			EndLine: d.EndPos().Line, EndColumn: d.EndPos().Column, StepID: d.StepID, Suggestion: d.Suggestion}
		if d.StepIndex >= 0 {
			i := d.StepIndex
			jd.StepIndex = &i
		}
		for _, r := range d.Related {
			jd.Related = append(jd.Related, jsonRelated{Location: r.Pointer, Line: r.Pos.Line, Column: r.Pos.Column, Message: r.Message})
		}
		env.Diagnostics = append(env.Diagnostics, jd)
	}
	return encode(w, env)
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ruleName turns REF_NOT_SHARABLE into RefNotSharable, SARIF's style.
func ruleName(code string) string {
	var b strings.Builder
	for _, part := range strings.Split(code, "_") {
		if part == "" {
			continue
		}
		b.WriteString(part[:1])
		b.WriteString(strings.ToLower(part[1:]))
	}
	return b.String()
}

// GitHub renders one workflow command per diagnostic, which GitHub Actions
// shows as an annotation on the line.
func GitHub(w io.Writer, p *plan.Plan, ds []plan.Diagnostic, o Options) error {
	return githubFiles(w, []File{{Plan: p, Diags: ds}}, o)
}

func githubFiles(w io.Writer, files []File, o Options) error {
	var b strings.Builder
	show, _, _ := shown(files, o, false)
	for p, d := range show {
		// GitHub reads file= relative to the repository's root.
		file := p.Src.Name
		if o.Root != "" && file != "<stdin>" {
			if rel, _, ok := underRoot(file, o.Root); ok {
				file = filepath.ToSlash(rel)
			}
		}
		cmd := "notice"
		switch d.Severity {
		case plan.SeverityError:
			cmd = "error"
		case plan.SeverityWarning:
			cmd = "warning"
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n", cmd,
			ghProp(file), d.Pos().Line, d.Pos().Column, d.EndPos().Line, d.EndPos().Column, ghProp(d.Code), ghData(d.Message))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

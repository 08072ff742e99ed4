package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
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
	env := jsonEnvelope{Result: "OK", Diagnostics: []jsonDiag{}, Summary: Count(ds)}
	if env.Summary.Errors > 0 {
		env.Result = "FAIL"
	}
	show := shown(ds, o)
	env.Truncated = len(show) < len(ds)
	for _, d := range show {
		jd := jsonDiag{Severity: strings.ToUpper(d.Severity.String()), Code: d.Code, Message: d.Message,
			Location: d.Pointer, File: p.Src.Name, Line: d.Pos.Line, Column: d.Pos.Column,
			EndLine: d.EndPos.Line, EndColumn: d.EndPos.Column, StepID: d.StepID, Suggestion: d.Suggestion}
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

// SARIF 2.1.0, the subset GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               *int          `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation map[string]string `json:"artifactLocation"`
	Region           sarifRegion       `json:"region"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// DocsURL is where the catalogue of codes is documented.
const DocsURL = "https://github.com/planctl/planctl/blob/main/plan/DIAGNOSTICS.md"

func sarifLevel(s plan.Severity) string {
	switch s {
	case plan.SeverityError:
		return "error"
	case plan.SeverityWarning:
		return "warning"
	}
	return "note"
}

// SARIF renders a SARIF 2.1.0 log with the whole catalogue as rules, columns
// counted in code points.
func SARIF(w io.Writer, p *plan.Plan, ds []plan.Diagnostic, o Options) error {
	drv := sarifDriver{Name: "planctl", Version: o.Version, InformationURI: "https://github.com/planctl/planctl"}
	index := map[string]int{}
	for i, c := range plan.Codes {
		index[c.ID] = i
		drv.Rules = append(drv.Rules, sarifRule{
			ID: c.ID, Name: ruleName(c.ID),
			ShortDescription:     sarifText{Text: c.Summary},
			FullDescription:      sarifText{Text: c.Group + ": " + c.Summary},
			HelpURI:              DocsURL + "#" + strings.ToLower(c.ID),
			DefaultConfiguration: map[string]any{"level": sarifLevel(c.Severity)},
			Properties:           map[string]any{"tags": []string{c.Group}},
		})
	}
	uri := artifactURI(p.Src.Name)
	run := sarifRun{Tool: sarifTool{Driver: drv}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	for _, d := range shown(ds, o) {
		res := sarifResult{RuleID: d.Code, RuleIndex: index[d.Code], Level: sarifLevel(d.Severity),
			Message: sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: map[string]string{"uri": uri},
				Region:           sarifRegion{d.Pos.Line, d.Pos.Column, d.EndPos.Line, d.EndPos.Column}}}}}
		for i, r := range d.Related {
			id := i + 1
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: &id,
				PhysicalLocation: sarifPhysical{ArtifactLocation: map[string]string{"uri": uri},
					Region: sarifRegion{StartLine: r.Pos.Line, StartColumn: r.Pos.Column}},
				Message: &sarifText{Text: r.Message}})
		}
		run.Results = append(run.Results, res)
	}
	return encode(w, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// artifactURI makes a file name a relative URI reference, as SARIF's
// artifactLocation.uri must be: forward slashes, each segment escaped
// ("<stdin>" becomes "%3Cstdin%3E").
func artifactURI(name string) string {
	parts := strings.Split(strings.ReplaceAll(name, "\\", "/"), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
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
	var b strings.Builder
	for _, d := range shown(ds, o) {
		cmd := "notice"
		switch d.Severity {
		case plan.SeverityError:
			cmd = "error"
		case plan.SeverityWarning:
			cmd = "warning"
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n", cmd,
			ghProp(p.Src.Name), d.Pos.Line, d.Pos.Column, d.EndPos.Line, d.EndPos.Column, ghProp(d.Code), ghData(d.Message))
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

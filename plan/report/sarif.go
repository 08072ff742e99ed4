package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
)

// SARIF 2.1.0, as GitHub code scanning reads it: one run for every file of
// an invocation, with automationDetails, the catalogue as rules (each with
// help), URIs relative to the repository root, fingerprints, and an
// invocation that says whether planctl could do its work.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	AutomationDetails  sarifAutomation             `json:"automationDetails"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation           `json:"invocations"`
	ColumnKind         string                      `json:"columnKind"`
	Results            []sarifResult               `json:"results"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	StartTimeUTC        string              `json:"startTimeUtc,omitempty"`
	EndTimeUTC          string              `json:"endTimeUtc,omitempty"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
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

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifHelp      `json:"help"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	ID               *int          `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           sarifRegion      `json:"region"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// DocsURL is where the catalogue of codes is documented.
const DocsURL = "https://github.com/planctl/planctl/blob/main/docs/diagnostics.md"

// CodeURL is the documentation of one code: its section of DocsURL.
func CodeURL(code string) string { return DocsURL + "#" + strings.ToLower(code) }

// FingerprintKey names planctl's entry in a result's partialFingerprints.
const FingerprintKey = "planctlDiagnostic/v1"

// srcRoot is the uriBaseId of the directory artifact URIs are relative to.
const srcRoot = "SRCROOT"

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
	return sarifFiles(w, []File{{Plan: p, Diags: ds}}, o)
}

func sarifRules() []sarifRule {
	rules := make([]sarifRule, 0, len(plan.Codes))
	for _, c := range plan.Codes {
		doc := plan.CodeDoc(c.ID)
		if doc == "" {
			doc = c.Summary + ".\n"
		}
		rules = append(rules, sarifRule{
			ID: c.ID, Name: ruleName(c.ID),
			ShortDescription: sarifText{Text: c.Summary},
			FullDescription:  sarifText{Text: c.Group + ": " + c.Summary},
			Help: sarifHelp{
				Text:     c.ID + " (" + c.Severity.String() + ", " + c.Group + "): " + c.Summary + ". An example plan, the output it gives and the fix: " + CodeURL(c.ID),
				Markdown: "**`" + c.ID + "`** " + doc + "\n[The catalogue of planctl's diagnostics](" + DocsURL + ")\n",
			},
			HelpURI:              CodeURL(c.ID),
			DefaultConfiguration: map[string]any{"level": sarifLevel(c.Severity)},
			Properties:           map[string]any{"tags": []string{c.Group}},
		})
	}
	return rules
}

func sarifFiles(w io.Writer, files []File, o Options) error {
	drv := sarifDriver{Name: "planctl", Version: sarifVersion(o.Version), InformationURI: "https://github.com/planctl/planctl", Rules: sarifRules()}
	index := map[string]int{}
	for i, c := range plan.Codes {
		index[c.ID] = i
	}
	category := o.Category
	if category == "" {
		category = "planctl"
	}
	run := sarifRun{Tool: sarifTool{Driver: drv}, AutomationDetails: sarifAutomation{ID: category + "/"},
		ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	if o.Root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: dirURI(o.Root)}}
	}
	inv := sarifInvocation{ExecutionSuccessful: len(o.Failures) == 0}
	if !o.Start.IsZero() {
		inv.StartTimeUTC = o.Start.UTC().Format(time.RFC3339Nano)
	}
	if !o.End.IsZero() {
		inv.EndTimeUTC = o.End.UTC().Format(time.RFC3339Nano)
	}
	for _, f := range o.Failures {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: f}})
	}
	show, n, total := shown(files, o, true)
	if all := total.all(); n < all {
		// Code scanning closes as fixed every alert whose result a log
		// leaves out: the run says it left results out, and is not a
		// successful run (MaxResults' documentation says so).
		inv.ExecutionSuccessful = false
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: fmt.Sprintf(
			"planctl wrote %d of the %d results it found (--max-results %d): the other %d are not in this log, and code scanning would close their alerts as fixed; run without --max-results to report them all",
			n, all, o.MaxResults, all-n)}})
	}
	run.Invocations = []sarifInvocation{inv}

	locs := make([]sarifArtifactLoc, len(files))
	for i, f := range files {
		locs[i] = artifactLocation(f.Plan.Src.Name, o.Root)
	}
	fileOf := map[*plan.Plan]int{}
	for i, f := range files {
		fileOf[f.Plan] = i
	}
	seen := map[string]int{}
	for p, d := range show {
		loc := locs[fileOf[p]]
		res := sarifResult{RuleID: d.Code, RuleIndex: index[d.Code], Level: sarifLevel(d.Severity),
			Message: sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: loc,
				Region: sarifRegion{d.Pos().Line, d.Pos().Column, d.EndPos().Line, d.EndPos().Column}}}}}
		for i, r := range d.Related {
			id := i + 1
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: &id,
				PhysicalLocation: sarifPhysical{ArtifactLocation: loc,
					Region: sarifRegion{StartLine: r.Pos.Line, StartColumn: r.Pos.Column}},
				Message: &sarifText{Text: r.Message}})
		}
		key := fingerprint(loc.URI, p, *d)
		seen[key]++
		res.PartialFingerprints = map[string]string{FingerprintKey: key + ":" + strconv.Itoa(seen[key])}
		run.Results = append(run.Results, res)
	}
	return encode(w, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// fingerprint identifies a finding across commits so that code scanning
// can tell a fixed alert from a moved one: the file, the code, and where in
// the plan it is, by step id rather than by line or step index, so that
// adding a step above does not make every finding below look new. The
// message is left out: its wording may improve, its code and place do not.
func fingerprint(uri string, p *plan.Plan, d plan.Diagnostic) string {
	where := "ptr:" + d.Pointer
	if d.StepID != "" && d.StepIndex >= 0 && d.StepIndex < len(p.Steps) {
		where = "step:" + d.StepID + "\x00" + strings.TrimPrefix(d.Pointer, p.Steps[d.StepIndex].Ptr)
	}
	sum := sha256.Sum256([]byte(uri + "\x00" + d.Code + "\x00" + where))
	return hex.EncodeToString(sum[:16])
}

// artifactLocation is the location of a file: relative to root (with the
// SRCROOT base) when the file is under it, an absolute file URI when it is
// elsewhere, and the name as a relative URI reference when root is "".
func artifactLocation(name, root string) sarifArtifactLoc {
	if root == "" || name == "<stdin>" {
		return sarifArtifactLoc{URI: artifactURI(name)}
	}
	rel, abs, ok := underRoot(name, root)
	switch {
	case ok:
		return sarifArtifactLoc{URI: artifactURI(rel), URIBaseID: srcRoot}
	case abs != "":
		return sarifArtifactLoc{URI: fileURI(abs)}
	}
	return sarifArtifactLoc{URI: artifactURI(name)}
}

// underRoot is the path of file name relative to root, when it is under
// root; abs is its absolute path ("" when it cannot be made).
func underRoot(name, root string) (rel, abs string, ok bool) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", "", false
	}
	rel, err = filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", abs, false
	}
	return rel, abs, true
}

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dirURI is the file: URI of a directory, with the trailing slash SARIF
// requires of a base URI.
func dirURI(abs string) string {
	u := fileURI(abs)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
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

// sarifVersion is the tool version as SARIF wants it, starting with a digit
// so that versions compare (SARIF2005): a module version loses its "v", and
// a build from a checkout ("(devel)", or a bare revision) reads
// "0.0.0-devel".
func sarifVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" {
		return ""
	}
	if v[0] < '0' || v[0] > '9' {
		return "0.0.0-devel"
	}
	return v
}

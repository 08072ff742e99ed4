package samples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/cli"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// TestInvalidSamples: each samples/invalid-*.json holds the mistakes of one
// class of diagnostic; `planctl validate` prints exactly the reviewed text in
// samples/expected/NAME.validate.txt and exits 1.
func TestInvalidSamples(t *testing.T) {
	plans, _ := filepath.Glob("invalid-*.json")
	if len(plans) < 6 {
		t.Fatalf("expected a bad plan per class of diagnostic, found %d", len(plans))
	}
	for _, p := range plans {
		name := strings.TrimSuffix(p, ".json")
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Main([]string{"validate", p}, strings.NewReader(""), &out, &errOut)
			golden := filepath.Join("expected", name+".validate.txt")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden output: run go test ./samples -update and review it: %v", err)
			}
			if out.String() != string(want) {
				t.Errorf("validate output differs from %s\n got:\n%s\nwant:\n%s", golden, out.String(), want)
			}
			if code != 1 {
				t.Errorf("exit code %d, want 1 (stderr: %s)", code, errOut.String())
			}
		})
	}
}

// TestValidSamples: the samples that run to completion validate without an
// error (warnings and notes are allowed).
func TestValidSamples(t *testing.T) {
	for _, p := range []string{"backup.json", "backup-notify.json", "migration.json", "weather.json", "arrays.json", "big-numbers.json", "slow-report.json"} {
		var out, errOut bytes.Buffer
		if code := cli.Main([]string{"validate", p}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", p, code, out.String(), errOut.String())
		}
	}
}

// TestCleanSamples: the correct samples give no diagnostic of any severity on
// the embedded demo catalog, so the debugger opens them with no mark. Among
// them the Plan backend's documented plan (backup, then validate) followed by
// a notify step, and migration.json, the README's first command: both once
// drew an UNUSED_OUTPUT note on the validate step, whose result in fact goes
// back to the model in the response.
func TestCleanSamples(t *testing.T) {
	for _, name := range []string{"backup.json", "backup-notify.json", "migration.json", "weather.json",
		"big-numbers.json", "slow-report.json", "tool-error.json"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load(name, src, plan.Limits{})
		if ds := check.Validate(p, mockserver.Demo()); len(ds) > 0 {
			t.Errorf("%s: want no diagnostic, got %d:", name, len(ds))
			for _, d := range ds {
				t.Errorf("  %s", d)
			}
		}
	}
	// The read-only validate step of backup-notify.json is read by no later
	// step: the opt-in UNUSED_OUTPUT finds it, and does not tell anyone to drop it.
	src, err := os.ReadFile("backup-notify.json")
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("backup-notify.json", src, plan.Limits{})
	ds := check.ValidateWith(p, mockserver.Demo(), check.ValidateOptions{UnusedOutput: true})
	if len(ds) != 1 || ds[0].Code != "UNUSED_OUTPUT" || ds[0].StepID != "validate" || ds[0].Severity != plan.SeverityInfo {
		t.Fatalf("with UnusedOutput: want one UNUSED_OUTPUT info on step validate, got %v", ds)
	}
	if strings.Contains(ds[0].Message, "drop") || strings.Contains(ds[0].Message, "remove") {
		t.Errorf("UNUSED_OUTPUT must not advise dropping the step: %s", ds[0].Message)
	}
}

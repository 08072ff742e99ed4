package samples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/cli"
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
	for _, p := range []string{"backup.json", "migration.json", "weather.json", "arrays.json", "big-numbers.json", "slow-report.json"} {
		var out, errOut bytes.Buffer
		if code := cli.Main([]string{"validate", p}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", p, code, out.String(), errOut.String())
		}
	}
}

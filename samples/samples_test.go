// Package samples holds plans a user can open at once; this test makes each
// of them a test case: its Concierge-exact response is a reviewed golden file.
package samples_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/cli"
)

var update = flag.Bool("update", false, "rewrite the golden responses (review the diff before committing)")

// TestSampleResponses runs every sample with --no-preflight, as a Concierge
// server would, and compares the response with samples/expected/NAME.response.json.
func TestSampleResponses(t *testing.T) {
	plans, _ := filepath.Glob("*.json")
	if len(plans) < 8 {
		t.Fatalf("expected at least 8 sample plans, found %d", len(plans))
	}
	for _, p := range plans {
		name := strings.TrimSuffix(p, ".json")
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Main([]string{"run", "--no-preflight", p}, strings.NewReader(""), &out, &errOut)
			golden := filepath.Join("expected", name+".response.json")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden response: run go test ./samples -update and review it: %v", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("response differs from %s\n got: %s\nwant: %s", golden, out.Bytes(), want)
			}
			wantCode := 0
			if bytes.Contains(want, []byte(`"status": "partial"`)) || bytes.HasPrefix(bytes.TrimSpace(want), []byte(`{
  "error"`)) {
				wantCode = 1
			}
			if code != wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, wantCode, errOut.String())
			}
		})
	}
}

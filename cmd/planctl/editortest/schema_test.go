package editortest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaCodes are the errors a JSON Schema can express (as in
// plan/planschema_test.go); schemaMaybe those it sees only in part.
var (
	schemaCodes = map[string]bool{
		"PLAN_SHAPE": true, "UNKNOWN_PLAN_KEY": true, "EMPTY_PLAN": true, "STEP_SHAPE": true,
		"UNKNOWN_STEP_KEY": true, "MISSING_STEP_ID": true, "STEP_ID_TYPE": true, "MISSING_TOOL": true,
		"UNKNOWN_TOOL": true, "ARGS_SHAPE": true, "MISSING_REQUIRED_ARG": true, "UNKNOWN_ARG": true,
		"ARG_TYPE": true, "ARG_SCHEMA": true, "ARG_JSON_STRING": true, "REF_MALFORMED": true,
		"REF_PATH_TYPE": true, "REF_EXTRA_KEYS": true, "REF_NOT_SHARABLE": true, "REF_LOOKALIKE": true,
	}
	schemaMaybe = map[string]bool{"REF_PATH_ELEMENT": true, "JSON_SYNTAX": true, "PLAN_LIMITS": true}
)

// TestSchemaWithAjv: ajv (2020-12, the schema checked against the meta-schema) compiles the schema of
// `planctl schema`, passes every sample planctl validate finds no
// schema-expressible error in, and fails every other sample at the places
// planctl validate names.
func TestSchemaWithAjv(t *testing.T) {
	t.Parallel()
	needNodePackage(t, "ajv")
	code, schema, stderr := planctl(t, root, "schema")
	if code != 0 {
		t.Fatalf("planctl schema: exit %d\n%s", code, stderr)
	}
	schemaFile := filepath.Join(t.TempDir(), "plan.schema.json")
	os.WriteFile(schemaFile, []byte(schema), 0o644)
	samples, _ := filepath.Glob(filepath.Join(root, "samples", "*.json"))
	args := []string{"schema.mjs", schemaFile}
	for _, s := range samples {
		args = append(args, absPath(t, s))
	}
	got := map[string]struct {
		Valid  bool
		Errors []string
		Parse  string
	}{}
	for _, line := range strings.Split(strings.TrimSpace(runNode(t, "ajv", args...)), "\n") {
		var r struct {
			File   string
			Valid  bool
			Errors []string
			Parse  string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got[r.File] = struct {
			Valid  bool
			Errors []string
			Parse  string
		}{r.Valid, r.Errors, r.Parse}
	}
	good, bad := 0, 0
	for _, s := range samples {
		_, out, _ := planctl(t, root, "validate", "--format", "json", "samples/"+filepath.Base(s))
		var env struct {
			Diagnostics []struct{ Severity, Code, Location string }
		}
		if err := json.Unmarshal([]byte(out), &env); err != nil {
			t.Fatal(err)
		}
		var must []string
		maybe := false
		for _, d := range env.Diagnostics {
			if d.Severity != "ERROR" {
				continue
			}
			if schemaCodes[d.Code] {
				must = append(must, d.Code+" "+d.Location)
			}
			maybe = maybe || schemaMaybe[d.Code]
		}
		r, ok := got[absPath(t, s)]
		name := filepath.Base(s)
		switch {
		case !ok || r.Parse != "":
			t.Errorf("%s: ajv did not check it: %s", name, r.Parse)
		case len(must) == 0 && !maybe && !r.Valid:
			t.Errorf("%s: planctl validate finds no schema-expressible error, ajv says %q", name, r.Errors)
		case len(must) > 0 && r.Valid:
			t.Errorf("%s: ajv passes a plan with %s", name, must[0])
		case len(must) > 0:
			for _, m := range must {
				loc := m[strings.Index(m, " ")+1:]
				found := false
				for _, e := range r.Errors {
					found = found || strings.HasPrefix(loc+"/", e+"/") || strings.HasPrefix(e+"/", loc+"/")
				}
				if !found {
					t.Errorf("%s: %s: ajv's errors are elsewhere: %q", name, m, r.Errors)
				}
			}
		}
		if r.Valid {
			good++
		} else {
			bad++
		}
	}
	if good < 8 || bad < 4 {
		t.Errorf("%d samples passed and %d failed: the test covers too little", good, bad)
	}
}

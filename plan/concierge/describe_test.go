package concierge

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
)

func TestRenderConcierge(t *testing.T) {
	tools := []*plan.Tool{
		{Name: "validate_backup", Description: "Validate the integrity of a backup.",
			InputSchema:  []byte(`{"type":"object","properties":{"backup_id":{"type":"string"}},"required":["backup_id"]}`),
			OutputSchema: []byte(`{"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}`),
			Sharable:     map[string]bool{"backup_id": true}},
		{Name: "mixed", InputSchema: []byte(`{"properties":{"z":{"type":["string","null"]},"a":{},"n":{"type":"number"}},"required":["a"]}`),
			OutputSchema: []byte(`{"description":"café ☕ 🚀","default":1.50,"big":1e400,"neg":-1e400,"lits":[NaN,-Infinity],"e":1E5}`), SharableAll: true},
		{Name: "empty", Description: "No parameters.", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{}`)},
	}
	want := "  validate_backup(backup_id: string [sharable])\n" +
		"    Validate the integrity of a backup.\n" +
		`    returns: {"type":"object","properties":{"status":{"type":"string"}},"required":["status"]}` + "\n\n" +
		// No description: Concierge still writes its (empty) line.
		"  mixed(z?: ['string', 'null'] [sharable], a: any [sharable], n?: number [sharable])\n\n" +
		`    returns: {"description":"caf\u00e9 \u2615 \ud83d\ude80","default":1.5,"big":Infinity,"neg":-Infinity,"lits":[NaN,-Infinity],"e":100000.0}` + "\n\n" +
		// A number beyond a double is the float json.load made of it.
		"  empty()\n" +
		"    No parameters."
	if got := RenderConcierge(tools); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderConciergeExact: the corners where Concierge's Python shows
// through its tool list (docs/concierge.md).
func TestRenderConciergeExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool *plan.Tool
		want string
	}{
		{"DEL and non-ASCII escaped in returns",
			&plan.Tool{Name: "t", InputSchema: []byte(`{}`), OutputSchema: []byte("{\"description\":\"a\x7fb\\u0080c\\u00a0\"}")},
			"  t()\n\n" + `    returns: {"description":"a\u007fb\u0080c\u00a0"}`},
		{"required as a string: each character",
			&plan.Tool{Name: "t", InputSchema: []byte(`{"properties":{"a":{"type":"string"},"b":{},"ab":{}},"required":"ab"}`)},
			"  t(a: string, b: any, ab?: any)\n"},
		{"required as an object: its keys",
			&plan.Tool{Name: "t", InputSchema: []byte(`{"properties":{"a":{},"b":{}},"required":{"b":false}}`)},
			"  t(a?: any, b: any)\n"},
		{"required null: none",
			&plan.Tool{Name: "t", InputSchema: []byte(`{"properties":{"a":{}},"required":null}`)},
			"  t(a?: any)\n"},
		{"a repeated property: first place, last schema",
			&plan.Tool{Name: "t", InputSchema: []byte(`{"properties":{"a":{"type":"string"},"b":{},"a":{"type":"integer"}}}`)},
			"  t(a?: integer, b?: any)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			RenderConciergeTool(&b, tc.tool)
			if got := b.String(); got != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

func TestXSharableExact(t *testing.T) {
	got := plan.XSharable([]byte(`{"properties":{"a":{"x-sharable":true},"b":{"X-Sharable":true},"c":{"x-sharable":"yes"},"d":{"x-sharable":false},"e":{"x-sharable":0},"f":{"x-sharable":1}}}`))
	if want := []string{"a"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("XSharable = %v, want %v", got, want)
	}
}

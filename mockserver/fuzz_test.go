package mockserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/planctl/planctl/plan"
)

// FuzzRender fills arbitrary templates with arbitrary arguments: the result
// is always valid JSON, and nothing panics.
func FuzzRender(f *testing.F) {
	f.Add([]byte(`{"a":"{{args.x}}","b":"pre {{args.y.0}} post","c":["{{args}}",1.5e3],"d":"{{args.none}}"}`), []byte(`{"x":12345678901234567890,"y":["s",{"k":null}]}`))
	f.Add([]byte(`"{{ args }}"`), []byte(`{}`))
	f.Add([]byte(`"{{args.}}{{args..}}{{}}{{args.a.b.c}}"`), []byte(`{"a":{"b":[1]}}`))
	f.Fuzz(func(t *testing.T, tmpl, args []byte) {
		tv, err := plan.ParseJSON(tmpl)
		if err != nil || !json.Valid(args) {
			return
		}
		if av, err := plan.ParseJSON(args); err != nil || av.Kind != plan.Object {
			return
		}
		out := Render(tv, tmpl, args)
		if !json.Valid(out) {
			t.Fatalf("Render(%s, %s) = %s: not JSON", tmpl, args, out)
		}
	})
}

// FuzzCatalog loads arbitrary catalogs and calls every tool they define.
func FuzzCatalog(f *testing.F) {
	f.Add(DemoJSON(), []byte(`{"database":"broken"}`))
	f.Add([]byte(testCatalog), []byte(`{"a":"boom","n":1}`))
	f.Fuzz(func(t *testing.T, catalog, args []byte) {
		c, err := Load("fuzz.json", catalog)
		if err != nil || !json.Valid(args) {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // delays end at once
		for _, tool := range c.Tools {
			res, err := c.Call(ctx, tool.Name, args)
			if err == nil && !res.IsError && !json.Valid(res.Value) {
				t.Fatalf("tool %q answered invalid JSON %s", tool.Name, res.Value)
			}
		}
	})
}

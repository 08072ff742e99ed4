package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
)

// FuzzRender fills arbitrary templates with arbitrary arguments: the result
// is always valid JSON, and nothing panics.
func FuzzRender(f *testing.F) {
	f.Add([]byte(`{"a":"{{args.x}}","b":"pre {{args.y.0}} post","c":["{{args}}",1.5e3],"d":"{{args.none}}"}`), []byte(`{"x":12345678901234567890,"y":["s",{"k":null}]}`))
	f.Add([]byte(`"{{ args }}"`), []byte(`{}`))
	f.Add([]byte(`"<{{args.s}}{{args.t}}>"`), []byte("{\"s\":\"\\ud800\\udc00x\\udfff\",\"t\":\"\xed\xa0\x80\xed\xa0\x80\"}"))
	f.Add([]byte(`{"\u0001k":"a{{args.s}}b{{args.o}}\u0002","w":"{{args.s}}"}`), []byte(`{"s":"\b\f\u0000\ud83d\ude00\/\"","o":{"k":"\"\\\n"}}`))
	f.Add([]byte(`"{{args.}}{{args..}}{{}}{{args.a.b.c}}"`), []byte(`{"a":{"b":[1]}}`))
	// Every result template of the demo catalog and of samples/catalogs,
	// with the arguments of the sample plans' steps.
	var templates [][]byte
	for _, cat := range append(plantest.Files("../samples/catalogs/*.json", "testdata/*.json"), DemoJSON()) {
		templates = append(templates, templatesOf(cat)...)
	}
	var argSets [][]byte
	for _, src := range plantest.Files("../samples/*.json") {
		p := plan.Load("s.json", src, plan.Limits{})
		for _, s := range p.Steps {
			if !s.Args().IsZero() && s.Args().Kind() == jsontext.Object {
				argSets = append(argSets, s.Args().Raw(src))
			}
		}
	}
	for i, tmpl := range templates {
		if len(argSets) > 0 {
			f.Add(tmpl, argSets[i%len(argSets)])
		}
	}
	f.Fuzz(func(t *testing.T, tmpl, args []byte) {
		plantest.Bounded(t, len(tmpl)+len(args), func() { fuzzRender(t, tmpl, args) })
	})
}

// templatesOf returns the raw "result" templates of a catalog file.
func templatesOf(cat []byte) [][]byte {
	root, err := jsontext.Parse(cat)
	if err != nil || root.Get("tools").IsZero() {
		return nil
	}
	var out [][]byte
	for _, tool := range root.Get("tools").Elems() {
		if r := tool.Get("result"); !r.IsZero() {
			out = append(out, r.Raw(cat))
		}
	}
	return out
}

func fuzzRender(t *testing.T, tmpl, args []byte) {
	tv, err := jsontext.Parse(tmpl)
	if err != nil || !json.Valid(args) {
		return
	}
	if av, err := jsontext.Parse(args); err != nil || av.Kind() != jsontext.Object {
		return
	}
	out := Render(tv, tmpl, args)
	if !json.Valid(out) {
		t.Fatalf("Render(%s, %s) = %s: not JSON", tmpl, args, out)
	}
	// A template of whole placeholders renders, without a scratch buffer,
	// the bytes any template renders to.
	c := compile(tv, tmpl)
	if w, ok := c.renderWhole(&argv{raw: args}); ok {
		if s := c.renderScratch(&argv{raw: args}); !bytes.Equal(w, s) {
			t.Fatalf("Render(%s, %s): %s, through a scratch buffer %s", tmpl, args, w, s)
		}
	}
	// What a server reserves for the result is never less than it is.
	if n := RenderedSize(tv, tmpl, args); n < int64(len(out)) {
		t.Fatalf("RenderedSize(%s, %s) = %d, less than the %d bytes of %s", tmpl, args, n, len(out), out)
	}
}

// FuzzCatalog loads arbitrary catalogs and calls every tool they define.
func FuzzCatalog(f *testing.F) {
	f.Add(DemoJSON(), []byte(`{"database":"broken"}`))
	f.Add([]byte(testCatalog), []byte(`{"a":"boom","n":1}`))
	for _, cat := range plantest.Files("../samples/catalogs/*.json", "testdata/*.json", "../plan/testdata/catalog.json") {
		f.Add(cat, []byte(`{"database":"main","path":"/tmp"}`))
	}
	f.Fuzz(func(t *testing.T, catalog, args []byte) {
		plantest.Bounded(t, len(catalog)+len(args), func() { fuzzCatalog(t, catalog, args) })
	})
}

func fuzzCatalog(t *testing.T, catalog, args []byte) {
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
}

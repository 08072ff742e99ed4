package upstream

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://user:pass@host:8/mcp?api_key=K&x=1#frag": "http://redacted@host:8/mcp?api_key=redacted&x=redacted",
		"https://host/mcp": "https://host/mcp",
		"http://tok@host/": "http://redacted@host/",
		"http://host/%zz":  "[redacted URL]",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
	raw := "http://u:p-SECRET@h/mcp?k=K-SECRET"
	for _, msg := range []string{
		`Post "` + raw + `": dial tcp: refused`,
		`Post "http://u:xxxxx@h/mcp?k=K-SECRET": refused`,
	} {
		if got := scrubURL(msg, raw); strings.Contains(got, "SECRET") || !strings.Contains(got, "http://redacted@h/mcp?k=redacted") {
			t.Errorf("scrubURL(%q) = %q", msg, got)
		}
	}
}

package upstream

import (
	"net/url"
	"strings"
)

// redactURL is raw with its secrets out, for every message, log line and
// answer that shows a URL: user info becomes "redacted" and every query
// value "redacted" (an API key often rides there); scheme, host, path and
// query keys stay, so the URL is still recognisable. A URL that does not
// parse is shown as "[redacted URL]".
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[redacted URL]"
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "redacted"
		} else {
			for k := range q {
				q[k] = []string{"redacted"}
			}
			u.RawQuery = q.Encode()
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// scrubURL replaces raw in msg, as written or as Go's libraries print it
// (net/url's Redacted form, re-encoded), with redactURL(raw): errors from
// HTTP libraries quote the URL they were given.
func scrubURL(msg, raw string) string {
	if raw == "" {
		return msg
	}
	shown := redactURL(raw)
	forms := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		forms = append(forms, u.String(), u.Redacted())
	}
	for _, f := range forms {
		if f != "" {
			msg = strings.ReplaceAll(msg, f, shown)
		}
	}
	return msg
}

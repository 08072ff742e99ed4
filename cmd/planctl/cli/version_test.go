package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		bi          *debug.BuildInfo
		short, line string
	}{
		{"no build info", nil, "(devel)", "(devel)"},
		{"go install ...@v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs("-trimpath", "true")},
			"v1.2.3", "v1.2.3"},
		{"go build -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)", "(devel)"},
		{"a test binary", &debug.BuildInfo{}, "(devel)", "(devel)"},
		{"go build in a clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203112256-c2b37928f9e5"},
			Settings: vcs("vcs", "git", "vcs.revision", "c2b37928f9e51e0b3a3f6a3e1f0d0c6c5e0b9a11", "vcs.time", "2026-12-03T11:22:56Z", "vcs.modified", "false")},
			"v0.0.0-20261203112256-c2b37928f9e5", "v0.0.0-20261203112256-c2b37928f9e5 (revision c2b37928f9e5, 2026-12-03T11:22:56Z)"},
		{"uncommitted changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "abc", "vcs.modified", "true")},
			"(devel)", "(devel) (revision abc, modified)"},
	} {
		if got := moduleVersion(tc.bi); got != tc.short {
			t.Errorf("%s: moduleVersion = %q, want %q", tc.name, got, tc.short)
		}
		if got := versionLine(tc.bi); got != tc.line {
			t.Errorf("%s: versionLine = %q, want %q", tc.name, got, tc.line)
		}
	}
}

package cli

import (
	"runtime/debug"
	"strings"
)

// Version is planctl's version as the Go toolchain recorded it in the
// binary: the module version when it was built with
// `go install github.com/planctl/planctl/cmd/planctl@v1.2.3`, a
// pseudo-version (v0.0.0-DATE-REVISION) when `go build` stamped it from a
// git checkout, else "(devel)". It names planctl in serve's serverInfo, in
// mock's and in SARIF reports; --version adds the VCS details (versionLine).
var Version = moduleVersion(buildInfo())

// buildInfo is the binary's build information, nil when it has none.
func buildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// moduleVersion is the main module's version in bi, or "(devel)".
func moduleVersion(bi *debug.BuildInfo) string {
	if bi == nil || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// versionLine is what --version prints after "planctl version": the module
// version, then the commit it was built from, its time, and "modified" when
// the tree had uncommitted changes, as far as the toolchain recorded them
// (a build with -buildvcs=false, as CI's, and go install records none).
func versionLine(bi *debug.BuildInfo) string {
	v := moduleVersion(bi)
	if bi == nil {
		return v
	}
	var vcs []string
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "revision "+rev[:min(len(rev), 12)])
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	if len(vcs) > 0 {
		v += " (" + strings.Join(vcs, ", ") + ")"
	}
	return v
}

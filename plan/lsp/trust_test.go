package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrusted: the trust file trusts a listed folder and the folders
// inside it, by their real paths: not a sibling that shares a prefix, not
// a link inside a trusted folder that leads out of it, not a relative
// entry; a malformed file says so.
func TestTrusted(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"proj", "proj/sub", "proj-evil", "other"} {
		os.MkdirAll(filepath.Join(base, d), 0o700)
	}
	os.Symlink(filepath.Join(base, "other"), filepath.Join(base, "proj", "out"))
	os.Symlink(filepath.Join(base, "proj"), filepath.Join(base, "via"))
	file := filepath.Join(base, "trusted.json")
	data, _ := json.Marshal(trustFile{Folders: []string{filepath.Join(base, "proj"), "other"}})
	os.WriteFile(file, data, 0o600)
	for dir, want := range map[string]bool{
		"proj": true, "proj/sub": true, "via": true, "via/sub": true,
		"proj-evil": false, "proj/out": false, "other": false, ".": false,
	} {
		got, err := trusted(file, filepath.Join(base, dir))
		if err != nil || got != want {
			t.Errorf("trusted(%s) = %v, %v; want %v", dir, got, err, want)
		}
	}
	if got, err := trusted(filepath.Join(base, "none.json"), filepath.Join(base, "proj")); got || err != nil {
		t.Errorf("a missing trust file: %v, %v; want false, no error", got, err)
	}
	os.WriteFile(file, []byte(`["/"]`), 0o600)
	if got, err := trusted(file, filepath.Join(base, "proj")); got || err == nil || !strings.Contains(err.Error(), `{"folders": [`) {
		t.Errorf("a malformed trust file: %v, %v", got, err)
	}
}

// TestFindSourceWithholds: what a workspace would start or fetch is cut
// to its files until trusted; initializationOptions are the user's.
func TestFindSourceWithholds(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ConfigFile), []byte(`{"url": "http://example.invalid/mcp", "catalog": "tools.json"}`), 0o600)
	f, err := findSource(nil, ws, "", false)
	if err != nil || f.src.URL != "" || f.src.Catalog != filepath.Join(ws, "tools.json") || !strings.Contains(f.withheld, "connects to http://example.invalid/mcp") {
		t.Errorf("untrusted: %+v %v", f, err)
	}
	f, err = findSource(json.RawMessage(`{"trustWorkspace": true}`), ws, "", false)
	if err != nil || f.src.URL != "http://example.invalid/mcp" || f.withheld != "" {
		t.Errorf("trusted in initializationOptions: %+v %v", f, err)
	}
	f, err = findSource(json.RawMessage(`{"server": "planctl mock"}`), ws, "", false)
	if err != nil || f.src.Server != "planctl mock" || f.withheld != "" || f.where != "initializationOptions" {
		t.Errorf("a source in initializationOptions: %+v %v", f, err)
	}
}

// TestFindSourceShape: a workspace's shaping keys are read as a launch
// configuration's, a relative root against the workspace; untrusted, the
// curation is kept for the files and what only servers get goes with
// the servers.
func TestFindSourceShape(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ConfigFile), []byte(`{"server": "planctl mock", "catalog": "tools.json", "readOnly": true, "denyTools": ["x*"],
		"passEnv": ["HOME"], "mcpRoot": ["data", "file:///srv"], "upstreamLogLevel": "error"}`), 0o600)
	f, err := findSource(json.RawMessage(`{"trustWorkspace": true}`), ws, "", false)
	if err != nil || !f.src.ReadOnly || len(f.src.DenyTools) != 1 || len(f.src.PassEnv) != 1 || f.src.UpstreamLogLevel != "error" ||
		strings.Join(f.src.MCPRoot, " ") != filepath.Join(ws, "data")+" file:///srv" {
		t.Errorf("trusted: %+v %v", f.src, err)
	}
	f, err = findSource(nil, ws, "", false)
	if err != nil || !f.src.ReadOnly || len(f.src.DenyTools) != 1 || f.src.PassEnv != nil || f.src.MCPRoot != nil || f.src.UpstreamLogLevel != "" || f.withheld == "" {
		t.Errorf("untrusted: %+v %v", f.src, err)
	}
}

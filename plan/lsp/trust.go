package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planctl/planctl/plan/regfile"
)

// A workspace is whatever folder the editor opened: a clone of someone
// else's repository as often as the user's own. Its .planctl.json may name
// a command (server, config) or an address (url) that opening the folder
// would run or fetch, so the server does neither until the user, not the
// workspace, says the folder is trusted: in the editor's settings for
// planctl (initializationOptions or workspace/didChangeConfiguration,
// "trustWorkspace": true) or in the trust file under the user's
// configuration folder. Until then it reads only the catalog and trace
// files the workspace names, which are data.

// TrustFileName is the trust file's name in planctl's folder of the
// user's configuration ($XDG_CONFIG_HOME/planctl, ~/.config/planctl).
const TrustFileName = "trusted.json"

// maxSettings bounds the workspace's .planctl.json and the trust file:
// both are a few lines.
const maxSettings = 1 << 20

// DefaultTrustFile is the trust file's path: trusted.json in planctl's
// folder under the user's configuration folder (os.UserConfigDir:
// $XDG_CONFIG_HOME or ~/.config on Linux), or "" when there is none.
func DefaultTrustFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "planctl", TrustFileName)
}

// trustFile is the trust file's content: the folders whose .planctl.json
// may start a server or fetch a URL (each with the folders inside it).
type trustFile struct {
	Folders []string `json:"folders"`
}

// trusted reports whether the trust file at path lists root or a folder
// above it. A missing file trusts nothing; an unreadable or malformed one
// is an error, so that the user learns why a listed folder is not trusted.
func trusted(path, root string) (bool, error) {
	if path == "" || root == "" {
		return false, nil
	}
	data, err := regfile.ReadFile(path, maxSettings)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("the trust file: %w", err)
	}
	var tf trustFile
	if err := json.Unmarshal(data, &tf); err != nil {
		return false, fmt.Errorf("the trust file %s is not {\"folders\": [\"/path/to/folder\", ...]}: %w", path, err)
	}
	want := canonical(root)
	for _, f := range tf.Folders {
		if !filepath.IsAbs(f) {
			continue // a relative folder would depend on where planctl starts
		}
		rel, err := filepath.Rel(canonical(f), want)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true, nil
		}
	}
	return false, nil
}

// canonical is the folder with its symbolic links resolved, so that a
// trusted folder reached through a link is still the same folder, and a
// link inside a trusted folder pointing out of it is not trusted.
func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// runsSomething says what a workspace's source would start or fetch, or
// "" when it names only files.
func (s Source) runsSomething() string {
	switch {
	case s.Server != "":
		return fmt.Sprintf("starts the command %q", s.Server)
	case s.URL != "":
		return fmt.Sprintf("connects to %s", s.URL)
	case s.Config != "":
		return fmt.Sprintf("starts a server of %s", s.Config)
	}
	return ""
}

// dataOnly is s without what would run or be fetched: the catalog and
// trace files it names, shaped as s says (what only a server is given,
// passEnv, mcpRoot and upstreamLogLevel, goes with the servers).
func (s Source) dataOnly() Source {
	sh := s.Shape
	sh.PassEnv, sh.MCPRoot, sh.UpstreamLogLevel = nil, nil, ""
	return Source{Catalog: s.Catalog, Replay: s.Replay, Sharable: s.Sharable, Shape: sh}
}

// untrustedMessage tells the user why the workspace's server was not
// started and how to allow it.
func untrustedMessage(file, root, what, trustFile string, fallback Source) string {
	how := `set "trustWorkspace": true in the editor's settings for planctl (initializationOptions)`
	if trustFile != "" {
		how = fmt.Sprintf(`add the folder to %s ({"folders": [%q]}), or %s`, trustFile, root, how)
	}
	return fmt.Sprintf("planctl lsp: %s %s, and the folder %s is not trusted: planctl runs nothing a workspace names until you trust it. To trust it, %s, then reload. Checking plans against %s meanwhile.",
		file, what, root, how, fallback)
}

package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/sources"
)

// Source says where the tools come from, with the keys and meaning of the
// command line's tool-source flags: initializationOptions carry it, else a
// .planctl.json at the workspace root, else it is empty (the embedded demo
// catalog). Its Shape has the keys of a launch configuration (planctl
// dap), so that one workspace describes the same sources to both.
type Source struct {
	Catalog  string   `json:"catalog,omitempty"`
	Server   string   `json:"server,omitempty"`
	URL      string   `json:"url,omitempty"`
	Headers  []string `json:"header,omitempty"`
	Config   string   `json:"config,omitempty"`
	Name     string   `json:"name,omitempty"`
	Replay   string   `json:"replay,omitempty"`
	Sharable []string `json:"sharable,omitempty"`
	sources.Shape
}

// ConfigFile is the name of the workspace file that holds a Source.
const ConfigFile = ".planctl.json"

// String names the source for people.
func (s Source) String() string {
	switch {
	case s.Catalog != "":
		return "catalog " + s.Catalog
	case s.Server != "":
		return "server " + s.Server
	case s.URL != "":
		return "url " + s.URL
	case s.Config != "":
		return "config " + s.Config + " name " + s.Name
	case s.Replay != "":
		return "replay " + s.Replay
	}
	return "the embedded demo catalog"
}

// settings are planctl's editor settings (initializationOptions): a
// Source, or trustWorkspace alone to let the workspace's .planctl.json
// start its server.
type settings struct {
	Source
	TrustWorkspace bool `json:"trustWorkspace,omitempty"`
}

// empty reports whether s names no source (the demo catalog).
func (s Source) empty() bool {
	return s.Catalog == "" && s.Server == "" && s.URL == "" && len(s.Headers) == 0 && s.Config == "" &&
		s.Name == "" && s.Replay == "" && len(s.Sharable) == 0 && s.Shape.Empty()
}

// decodeSettings reads settings from JSON, refusing keys it does not know
// (a misspelt "catalgo" should not silently mean the demo catalog).
func decodeSettings(data []byte, where string) (settings, error) {
	var s settings
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return settings{}, fmt.Errorf("%s: %w (the keys are catalog, server, url, header, config, name, replay, sharable, %s, trustWorkspace)", where, err, strings.Join(sources.Keys, ", "))
	}
	return s, nil
}

// resolve makes the file paths of s (and its roots) absolute against the
// workspace root.
func (s Source) resolve(root string) Source {
	abs := func(p string) string {
		if p == "" || root == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	s.Catalog, s.Config, s.Replay = abs(s.Catalog), abs(s.Config), abs(s.Replay)
	s.Shape = s.Shape.Resolve(root)
	return s
}

// found is the tool source findSource picked.
type found struct {
	src   Source
	where string // the file or "initializationOptions" it came from; "" for the demo catalog
	// withheld, when not "", says what of the workspace's source was not
	// started or fetched (the folder is not trusted), and how to allow it.
	withheld string
}

// findSource picks the tool source: initializationOptions when they name
// one, else root/.planctl.json when it exists, else the demo catalog. A
// .planctl.json that would start a command or fetch a URL is cut down to
// the files it names unless the user trusts the folder (trustWorkspace in
// the editor's settings, or the trust file at trustFile).
func findSource(initOptions json.RawMessage, root, trustFile string, trustWorkspace bool) (found, error) {
	if t := bytes.TrimSpace(initOptions); len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte("{}")) {
		st, err := decodeSettings(t, "initializationOptions")
		if err != nil {
			return found{where: "initializationOptions"}, err
		}
		if !st.Source.empty() {
			return found{src: st.Source.resolve(root), where: "initializationOptions"}, nil
		}
		trustWorkspace = trustWorkspace || st.TrustWorkspace
	}
	if root == "" {
		return found{}, nil
	}
	file := filepath.Join(root, ConfigFile)
	data, err := regfile.ReadFile(file, maxSettings)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return found{}, nil
	case err != nil:
		return found{where: file}, err
	}
	st, err := decodeSettings(data, file)
	if err != nil {
		return found{where: file}, err
	}
	if st.TrustWorkspace {
		// The workspace cannot vouch for itself.
		return found{where: file}, fmt.Errorf("%s: \"trustWorkspace\" is the user's to set, in the editor's settings or the trust file, not the workspace's", file)
	}
	src := st.Source.resolve(root)
	what := src.runsSomething()
	if what == "" || trustWorkspace {
		return found{src: src, where: file}, nil
	}
	ok, terr := trusted(trustFile, root)
	if ok {
		return found{src: src, where: file}, nil
	}
	limited := src.dataOnly()
	msg := untrustedMessage(file, root, what, trustFile, limited)
	if terr != nil {
		msg += " (" + terr.Error() + ")"
	}
	return found{src: limited, where: file, withheld: msg}, nil
}

// uriPath is the file path of a file: URI, or "" for another scheme.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///C:/x on Windows
		p = p[1:]
	}
	return filepath.FromSlash(strings.TrimSuffix(p, "/"))
}

// pathURI is the file: URI of an absolute path.
func pathURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

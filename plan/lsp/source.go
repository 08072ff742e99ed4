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
)

// Source says where the tools come from, with the keys and meaning of the
// command line's tool-source flags: initializationOptions carry it, else a
// .planctl.json at the workspace root, else it is empty (the embedded demo
// catalog).
type Source struct {
	Catalog  string   `json:"catalog,omitempty"`
	Server   string   `json:"server,omitempty"`
	URL      string   `json:"url,omitempty"`
	Headers  []string `json:"header,omitempty"`
	Config   string   `json:"config,omitempty"`
	Name     string   `json:"name,omitempty"`
	Replay   string   `json:"replay,omitempty"`
	Sharable []string `json:"sharable,omitempty"`
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

// decodeSource reads a Source from JSON, refusing keys it does not know
// (a misspelt "catalgo" should not silently mean the demo catalog).
func decodeSource(data []byte, where string) (Source, error) {
	var s Source
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Source{}, fmt.Errorf("%s: %w (the keys are catalog, server, url, header, config, name, replay, sharable)", where, err)
	}
	return s, nil
}

// resolve makes the file paths of s absolute against the workspace root.
func (s Source) resolve(root string) Source {
	abs := func(p string) string {
		if p == "" || root == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	s.Catalog, s.Config, s.Replay = abs(s.Catalog), abs(s.Config), abs(s.Replay)
	return s
}

// findSource picks the tool source: initializationOptions when they say
// anything, else root/.planctl.json when it exists, else the demo catalog.
func findSource(initOptions json.RawMessage, root string) (Source, string, error) {
	if t := bytes.TrimSpace(initOptions); len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte("{}")) {
		s, err := decodeSource(t, "initializationOptions")
		return s.resolve(root), "initializationOptions", err
	}
	if root != "" {
		file := filepath.Join(root, ConfigFile)
		data, err := os.ReadFile(file)
		switch {
		case err == nil:
			s, err := decodeSource(data, file)
			return s.resolve(root), file, err
		case !errors.Is(err, os.ErrNotExist):
			return Source{}, file, err
		}
	}
	return Source{}, "", nil
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

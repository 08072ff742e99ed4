package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The server follows the workspace: the tool source is opened again when
// a file it was read from changes on disk (workspace/didChangeWatchedFiles,
// for .planctl.json and the catalog, config and trace files the source
// names) or when the user's settings change (didChangeConfiguration), and
// every open plan is validated again against the new tools. The trust
// rules of trust.go hold on each reload: an edited .planctl.json that
// names a command is cut down as it would be at initialize.

// watchID is the id of the server's one file-watching registration.
const watchID = "planctl-watched-files"

// watchedFiles are the files whose change makes the server reload: the
// workspace's .planctl.json and the files of the source it opened.
func (s *Server) watchedFiles() []string {
	var out []string
	if s.root != "" {
		out = append(out, filepath.Join(s.root, ConfigFile))
	}
	for _, f := range []string{s.src.Catalog, s.src.Config, s.src.Replay} {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, filepath.Clean(f))
		}
	}
	return out
}

// globFor is the watcher pattern of one file: its path, which clients
// match against the absolute path of each change; a path with a glob's
// special characters falls back to any file of that name.
func globFor(path string) string {
	p := filepath.ToSlash(path)
	if strings.ContainsAny(p, "*?[]{}") {
		return "**/" + filepath.Base(path)
	}
	return p
}

// registerLater asks the registrar to bring the client's watchers up to
// date. Requests coalesce: a client slow to answer (or that never does)
// holds one registration, not one goroutine per reload.
func (s *Server) registerLater() {
	select {
	case s.regKick <- struct{}{}:
	default:
	}
}

// registrar registers watchers on its own goroutine, since the client's
// answer comes on the stream the handlers are read from.
func (s *Server) registrar() {
	for {
		select {
		case <-s.done:
			return
		case <-s.regKick:
			s.register()
		}
	}
}

// register asks the client to watch the files of watchedFiles, replacing
// an earlier registration, when the client allows dynamic registration.
func (s *Server) register() {
	s.mu.Lock()
	files, call, dyn := s.watchedFiles(), s.call, s.dynWatch
	s.mu.Unlock()
	if !dyn || call == nil || slices.Equal(files, s.registered) {
		return
	}
	if s.registered != nil {
		call(string(protocol.ServerClientUnregisterCapability),
			protocol.UnregistrationParams{Unregisterations: []protocol.Unregistration{{ID: watchID, Method: string(protocol.MethodWorkspaceDidChangeWatchedFiles)}}}, nil)
	}
	watchers := make([]protocol.FileSystemWatcher, 0, len(files))
	for _, f := range files {
		watchers = append(watchers, protocol.FileSystemWatcher{GlobPattern: globFor(f)})
	}
	call(string(protocol.ServerClientRegisterCapability), protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID: watchID, Method: string(protocol.MethodWorkspaceDidChangeWatchedFiles),
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: watchers},
	}}}, nil)
	s.registered = files
}

func (s *Server) initialized(ctx *glsp.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	s.call = ctx.Call
	s.mu.Unlock()
	s.registerLater()
	return nil
}

// didChangeWatchedFiles reloads the tool source when one of the files it
// came from (or the workspace's .planctl.json) was created, changed or
// deleted. Changes of other files, which a client watching by its own
// patterns may send, change nothing.
func (s *Server) didChangeWatchedFiles(ctx *glsp.Context, params *protocol.DidChangeWatchedFilesParams) error {
	s.mu.Lock()
	watched := s.watchedFiles()
	s.mu.Unlock()
	hit := false
	for _, c := range params.Changes {
		if p := uriPath(c.URI); p != "" && slices.Contains(watched, filepath.Clean(p)) {
			hit = true
		}
	}
	if !hit {
		return nil
	}
	s.reload(ctx)
	return nil
}

// didChangeConfiguration takes the user's settings for planctl: the
// "planctl" section of the settings when there is one, else the settings
// themselves, with the keys of initializationOptions. A section naming a
// source replaces the source initializationOptions named; "trustWorkspace":
// true lets the workspace's .planctl.json start what it names. Settings
// that change neither (no settings, an empty section) reload nothing.
// Keys planctl does not know are ignored here: an editor sends its
// extension's own settings in the same section.
func (s *Server) didChangeConfiguration(ctx *glsp.Context, params *protocol.DidChangeConfigurationParams) error {
	raw, err := json.Marshal(params.Settings)
	if err != nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return nil // null or not an object: nothing to take
	}
	if sec, ok := top["planctl"]; ok {
		raw = sec
	}
	var st settings
	if err := json.Unmarshal(raw, &st); err != nil {
		ctx.Notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: protocol.MessageTypeError,
			Message: fmt.Sprintf("planctl lsp: the planctl settings are not {\"catalog\": \"tools.json\", ...}: %v; the tools stay as they were", err)})
		return nil
	}
	changed := false
	s.mu.Lock()
	if st.TrustWorkspace && !s.trust {
		s.trust, changed = true, true
	}
	if !st.Source.empty() {
		src, _ := json.Marshal(st.Source)
		if !bytes.Equal(src, s.initOpts) {
			s.initOpts, changed = src, true
		}
	}
	s.mu.Unlock()
	if changed {
		s.reload(ctx)
	}
	return nil
}

// reload opens the tool source again and validates every open plan
// against it. What cannot be opened leaves the tools as they were (a
// catalog caught half-written should not turn every step red), and the
// user is told.
func (s *Server) reload(ctx *glsp.Context) {
	s.openFound(ctx, true)
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	for _, d := range docs {
		s.schedule(d) // the same text, other tools: analyse sees the new catalog
	}
	s.registerLater()
}

// Package lsp is planctl's Language Server for plan files: a thin layer over
// the plan engine (plan.Load, check.Validate, the catalog) that speaks the
// Language Server Protocol through tliron/glsp. It publishes every
// diagnostic of the validator with exact UTF-16 ranges, offers the
// validator's fixes as quick fixes, completes tool names, argument names,
// step ids and reference paths, shows tool signatures as Concierge renders
// them on hover, and goes from a reference to the step it reads and back.
//
//	s := lsp.NewServer(lsp.Options{Open: openToolSource})
//	err := s.Serve(stdio) // until the client sends exit or closes the stream
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Options configure a Server.
type Options struct {
	// Open opens a tool source: the command line's own loader, so that the
	// server reads catalogs, MCP servers and traces exactly as validate
	// does. An empty Source is the embedded demo catalog. close releases
	// the source (stops an upstream server); it may be nil.
	Open func(ctx context.Context, src Source) (cat *plan.Catalog, close func() error, err error)
	// Version is planctl's version, told to the client.
	Version string
	// Log receives the transport's own complaints (a notification that
	// failed); nil drops them.
	Log io.Writer
	// TrustFile is the user's list of trusted folders, whose .planctl.json
	// may start a server or fetch a URL (DefaultTrustFile); "": none.
	TrustFile string
	// Quiet is how long a document's changes must pause before it is
	// validated and its diagnostics published: a burst of changes costs
	// one validation. 0 means DefaultQuiet; negative, no pause.
	Quiet time.Duration
}

// DefaultQuiet is the pause a burst of changes must end with before the
// document is validated: longer than the gaps between the changes an
// editor sends back to back (a paste, a multi-cursor edit, a formatter),
// and short beside the time between keystrokes, to whose latency it adds.
const DefaultQuiet = 10 * time.Millisecond

// Server is a Language Server for plan files. One Server serves one
// client connection.
type Server struct {
	opts    Options
	handler protocol.Handler

	mu       sync.Mutex
	docs     map[string]*document
	cat      *plan.Catalog
	closeCat func() error
	notify   glsp.NotifyFunc
	dirty    map[*document]bool
	shutDown bool // the client asked for shutdown
	// root and initOpts are initialize's, kept to look for the source
	// again when the user trusts the workspace (didChangeConfiguration);
	// withheld is set while the workspace's server is not started.
	root     string
	initOpts json.RawMessage
	withheld bool
	// trust is the user's "trustWorkspace", from initializationOptions or
	// the settings; it holds for every later reload.
	trust bool
	// src is the source opened last, whose files are watched.
	src Source
	// initDone is set once initialize has been answered: before it, the
	// protocol allows no other request.
	initDone bool
	// dynWatch: the client lets the server register file watchers; call
	// reaches the client (initialized's); regKick wakes the registrar, the
	// one goroutine that registers, and registered (the registrar's own)
	// is the files of the registration in force.
	dynWatch   bool
	call       glsp.CallFunc
	regKick    chan struct{}
	registered []string
	wake       chan struct{}
	done       chan struct{}
	// changing counts the changes being applied: the quiet period begins
	// when the last is applied (applying one to a large text takes a while
	// of its own, longer than the gaps between the changes of a burst).
	changing atomic.Int32
	// calls are the requests being answered off the reading goroutine,
	// by id ($/cancelRequest's) and by the glsp.Context their handler
	// gets; inflight is waited for before Serve returns.
	calls    map[jsonrpc2.ID]*call
	byCtx    map[*glsp.Context]*call
	inflight sync.WaitGroup
	slots    chan struct{} // one per request being answered: maxInflight
}

// NewServer makes a server; Serve runs it.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts, docs: map[string]*document{}, dirty: map[*document]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{}), regKick: make(chan struct{}, 1),
		calls: map[jsonrpc2.ID]*call{}, byCtx: map[*glsp.Context]*call{}, slots: make(chan struct{}, maxInflight)}
	s.handler = protocol.Handler{
		Initialize:                      s.initialize,
		Initialized:                     s.initialized,
		Shutdown:                        s.shutdown,
		Exit:                            func(*glsp.Context) error { return nil },
		SetTrace:                        func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:             s.didOpen,
		TextDocumentDidChange:           s.didChange,
		TextDocumentDidClose:            s.didClose,
		TextDocumentDidSave:             func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentCompletion:          s.completion,
		TextDocumentHover:               s.hover,
		TextDocumentDefinition:          s.definition,
		TextDocumentReferences:          s.references,
		TextDocumentDocumentSymbol:      s.documentSymbol,
		TextDocumentCodeAction:          s.codeAction,
		WorkspaceDidChangeWatchedFiles:  s.didChangeWatchedFiles,
		WorkspaceDidChangeConfiguration: s.didChangeConfiguration,
	}
	return s
}

// Serve answers the client on stream until it sends exit or closes the
// stream, then releases the tool source. Frames are read by frameStream
// (a bad one is answered and skipped), messages decoded by
// sourcegraph/jsonrpc2 (the transport glsp's own server uses; its
// exported runner is bound to the process's stdin and stdout, which tests
// and the CLI's injected streams cannot use) and handled by glsp's
// protocol.Handler: notifications in order as they are read, requests on
// documents concurrently (replier.Handle). Serve returns once the requests
// still being answered have ended (they are cancelled).
func (s *Server) Serve(stream io.ReadWriteCloser) error {
	go s.publisher()
	go s.registrar()
	var opts []jsonrpc2.ConnOpt
	if s.opts.Log != nil {
		opts = append(opts, jsonrpc2.SetLogger(log.New(s.opts.Log, "planctl lsp: ", 0)))
	}
	fs := newFrameStream(stream, s.opts.Log)
	conn := jsonrpc2.NewConn(context.Background(), fs, replier{s, fs}, opts...)
	<-conn.DisconnectNotify()
	close(s.done)
	s.mu.Lock()
	for _, c := range s.calls {
		c.cancel()
	}
	s.mu.Unlock()
	s.inflight.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.closeCat != nil {
		err = s.closeCat()
		s.closeCat = nil
	}
	if !s.shutDown {
		return errors.Join(ErrNoShutdown, err)
	}
	return err
}

// ErrNoShutdown is Serve's error when the connection ended without a
// shutdown request: the client exited or went away. The protocol asks the
// server to exit with code 1 then.
var ErrNoShutdown = errors.New("the client ended the connection without a shutdown request")

// replier is jsonrpc2.HandlerWithError but for the writing of a result:
// it goes out through frameStream.writeResult, encoded once.
type replier struct {
	s  *Server
	fs *frameStream
}

// Handle answers req (a request) with its result or error. It is called
// on the reading goroutine, one message at a time: notifications (which
// change documents, and must be applied in order) are handled there; the
// requests on a document are answered off it (a documentSymbol of a long
// plan, or one waiting for a validation, holds up nothing behind it), each
// against the text it was sent for: the document's version when it was
// read.
func (h replier) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == "$/cancelRequest" {
		h.s.cancel(req)
		return
	}
	if req.Notif || !concurrent(req.Method) {
		h.answer(ctx, conn, req, nil)
		return
	}
	// A client that sends requests faster than their answers are read
	// (or written) is held to maxInflight at a time: the reading waits
	// for a slot, as it waited for each answer before.
	h.s.slots <- struct{}{}
	c := h.s.begin(req)
	go func() {
		defer func() { <-h.s.slots }()
		defer h.s.end(req.ID, c)
		h.answer(ctx, conn, req, c)
	}()
}

// maxInflight bounds the requests answered at once: far more than an
// editor has outstanding, and a bound on the goroutines and snapshots a
// flood of requests can hold.
const maxInflight = 64

// concurrent says whether requests of method are answered off the reading
// goroutine: those that read a document and change nothing, whose answers
// the protocol lets come in any order. (This and modifies are switches,
// not package-level maps, which every planctl process would build at
// init.)
func concurrent(method string) bool {
	switch protocol.Method(method) {
	case protocol.MethodTextDocumentCompletion, protocol.MethodTextDocumentHover,
		protocol.MethodTextDocumentDefinition, protocol.MethodTextDocumentReferences,
		protocol.MethodTextDocumentDocumentSymbol, protocol.MethodTextDocumentCodeAction:
		return true
	}
	return false
}

// modifies says whether requests of method are answered ContentModified
// when their document changed while they ran, not only before: those that
// take long (a document's symbols made whole, quick fixes each validated)
// and whose answer is of no use for another text.
func modifies(method string) bool {
	switch protocol.Method(method) {
	case protocol.MethodTextDocumentDocumentSymbol, protocol.MethodTextDocumentCodeAction:
		return true
	}
	return false
}

// LSP's error codes for a request cancelled by the client, and for one
// whose document changed under it.
const (
	codeRequestCancelled = -32800
	codeContentModified  = -32801
)

var (
	errCancelled = &jsonrpc2.Error{Code: codeRequestCancelled, Message: "the request was cancelled"}
	// errModified follows gopls: an answer computed for a text the editor
	// no longer has is dropped (vscode-languageclient shows no error for
	// it, and asks again when the editor does, for the new text).
	errModified = &jsonrpc2.Error{Code: codeContentModified,
		Message: "the document changed since the request was sent: ask again for its new version"}
)

// call is a request answered off the reading goroutine.
type call struct {
	ctx    context.Context
	cancel context.CancelFunc
	// doc and at are the document the request is on (nil: none open) and
	// its text when the request was read.
	doc *document
	at  *snapshot
}

// begin registers req, noting the text of its document as it is now: the
// changes read before req are applied, those after it are not yet.
func (s *Server) begin(req *jsonrpc2.Request) *call {
	ctx, cancel := context.WithCancel(context.Background())
	c := &call{ctx: ctx, cancel: cancel}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
		s.mu.Lock()
		c.doc = s.docs[p.TextDocument.URI]
		s.mu.Unlock()
		if c.doc != nil {
			c.at = c.doc.current()
		}
	}
	s.inflight.Add(1)
	s.mu.Lock()
	s.calls[req.ID] = c
	s.mu.Unlock()
	return c
}

func (s *Server) end(id jsonrpc2.ID, c *call) {
	c.cancel()
	s.mu.Lock()
	if s.calls[id] == c {
		delete(s.calls, id)
	}
	s.mu.Unlock()
	s.inflight.Done()
}

// cancel is $/cancelRequest: the request it names, if still waiting or
// running, stops at its next check and is answered RequestCancelled.
func (s *Server) cancel(req *jsonrpc2.Request) {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
		return
	}
	s.mu.Lock()
	c := s.calls[p.ID]
	s.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// callContext is the context of the request whose handler got gctx:
// cancelled by $/cancelRequest. A handler called otherwise (tests) gets
// one that never ends.
func (s *Server) callContext(gctx *glsp.Context) context.Context {
	if c := s.callOf(gctx); c != nil {
		return c.ctx
	}
	return context.Background()
}

func (s *Server) callOf(gctx *glsp.Context) *call {
	if gctx == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byCtx[gctx]
}

// acquire is the document uri with its analysis lock held, for a request:
// the text the request was sent for, or ContentModified when the editor
// has changed it since (the analysis follows the latest text only; a
// document closed and opened again is another), or RequestCancelled when
// the client cancelled it while it waited.
func (s *Server) acquire(gctx *glsp.Context, uri string) (*view, error) {
	d, err := s.doc(uri)
	if err != nil {
		return nil, err
	}
	c := s.callOf(gctx)
	ctx := context.Background()
	if c != nil {
		ctx = c.ctx
	}
	v, err := d.view(ctx)
	if err != nil {
		return nil, errCancelled
	}
	if c != nil && c.doc != nil && (c.doc != d || c.at != v.snapshot) {
		v.release()
		return nil, errModified
	}
	return v, nil
}

// answer handles req and writes its answer; c is the request's call when
// it is answered off the reading goroutine.
func (h replier) answer(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, c *call) {
	result, err := h.s.handle(ctx, conn, req, h.fs, c)
	if req.Notif {
		if err != nil && h.s.opts.Log != nil {
			fmt.Fprintf(h.s.opts.Log, "planctl lsp: %s: %v\n", req.Method, err)
		}
		return
	}
	if err == nil && c != nil {
		switch {
		case c.ctx.Err() != nil:
			// Cancelled while it ran: the client has stopped waiting.
			err = errCancelled
		case modifies(req.Method) && c.doc != nil && c.doc.current() != c.at:
			// The editor's outline is of the text it has now: it asks
			// again for it. A quick fix's edits are of the text they
			// were made for.
			err = errModified
		}
	}
	if err == nil {
		err = h.fs.writeResult(req.ID, result)
		if err == nil {
			return
		}
		if h.s.opts.Log != nil {
			fmt.Fprintf(h.s.opts.Log, "planctl lsp: the answer to %s: %v\n", req.Method, err)
		}
		// An answer that cannot be encoded is still answered: the client
		// would wait for it forever.
		err = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "the answer to " + req.Method + " cannot be encoded: " + err.Error()}
	}
	e, ok := err.(*jsonrpc2.Error)
	if !ok {
		e = &jsonrpc2.Error{Message: err.Error()}
	}
	if err := conn.ReplyWithError(ctx, req.ID, e); err != nil && h.s.opts.Log != nil {
		fmt.Fprintf(h.s.opts.Log, "planctl lsp: the answer to %s: %v\n", req.Method, err)
	}
}

// handle passes one message to glsp's handler and maps its outcome to
// JSON-RPC errors, as glsp's own server does. Notifications to the client
// are written by fs.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, fs *frameStream, c *call) (any, error) {
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) {
			if err := fs.writeNotification(method, params); err != nil && s.opts.Log != nil {
				fmt.Fprintf(s.opts.Log, "planctl lsp: %s: %v\n", method, err)
			}
		},
		Call: func(method string, params, result any) {
			if err := conn.Call(ctx, method, params, result); err != nil && s.opts.Log != nil {
				fmt.Fprintf(s.opts.Log, "planctl lsp: %s: %v\n", method, err)
			}
		},
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	if c != nil {
		s.mu.Lock()
		s.byCtx[gctx] = c
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.byCtx, gctx)
			s.mu.Unlock()
		}()
	}
	if req.Method == "exit" {
		s.handler.Handle(gctx)
		return nil, conn.Close()
	}
	s.mu.Lock()
	ready := s.initDone
	s.mu.Unlock()
	if !ready && req.Method != "initialize" {
		// The protocol's answer to a request before initialize; a
		// notification then is dropped (jsonrpc2 answers none).
		return nil, &jsonrpc2.Error{Code: codeServerNotInitialized,
			Message: "the server is not initialized: send initialize first, then " + req.Method}
	}
	r, validMethod, validParams, err := s.handler.Handle(gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		var e *jsonrpc2.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

// codeServerNotInitialized is LSP's error code for a request before
// initialize.
const codeServerNotInitialized = -32002

func (s *Server) catalog() *plan.Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cat
}

func (s *Server) initialize(ctx *glsp.Context, params *protocol.InitializeParams) (any, error) {
	root := ""
	switch {
	case len(params.WorkspaceFolders) > 0:
		root = uriPath(params.WorkspaceFolders[0].URI)
	case params.RootURI != nil:
		root = uriPath(*params.RootURI)
	case params.RootPath != nil:
		root = *params.RootPath
	}
	var initOpts json.RawMessage
	if params.InitializationOptions != nil {
		initOpts, _ = json.Marshal(params.InitializationOptions)
	}
	dyn := false
	if w := params.Capabilities.Workspace; w != nil && w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil {
		dyn = *w.DidChangeWatchedFiles.DynamicRegistration
	}
	s.mu.Lock()
	s.notify = ctx.Notify
	s.root, s.initOpts, s.dynWatch = root, initOpts, dyn
	var t struct {
		TrustWorkspace bool `json:"trustWorkspace"`
	}
	if json.Unmarshal(initOpts, &t) == nil && t.TrustWorkspace {
		s.trust = true
	}
	s.mu.Unlock()
	if err := s.openFound(ctx, false); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.initDone = true
	s.mu.Unlock()
	sync := protocol.TextDocumentSyncKindIncremental
	yes := true
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &sync},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{`"`, ":", ",", "[", "{"},
			},
			HoverProvider:          true,
			DefinitionProvider:     true,
			ReferencesProvider:     true,
			DocumentSymbolProvider: true,
			CodeActionProvider: protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "planctl", Version: &version},
	}, nil
}

// openFound looks for the tool source (findSource) and opens it. What it
// could not open, or withheld from an untrusted workspace, the user is
// told in a message, and the server checks plans against what it has: on
// a reload, the tools it had; at initialize, the demo catalog.
func (s *Server) openFound(ctx *glsp.Context, reload bool) error {
	s.mu.Lock()
	root, initOpts, trust := s.root, s.initOpts, s.trust
	s.mu.Unlock()
	f, err := findSource(initOpts, root, s.opts.TrustFile, trust)
	if err == nil {
		if err = s.open(f.src); err != nil && f.where != "" {
			err = fmt.Errorf("%s: %w", f.where, err)
		}
	}
	s.mu.Lock()
	s.withheld = f.withheld != ""
	// The files of a source that failed to open are watched too: their
	// fix is the change to reload on.
	s.src = f.src
	s.mu.Unlock()
	if f.withheld != "" {
		ctx.Notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: f.withheld})
	}
	if err != nil && reload {
		ctx.Notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: protocol.MessageTypeError,
			Message: "planctl lsp: cannot reload the tool source (" + err.Error() + "); keeping the tools loaded before"})
		return nil
	}
	if err != nil {
		// The editor still gets a working server, and is told why its
		// tools are missing.
		fallback := s.open(Source{})
		ctx.Notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: protocol.MessageTypeError,
			Message: "planctl lsp: cannot open the tool source (" + err.Error() + "); checking plans against the embedded demo catalog instead"})
		if fallback != nil {
			return fmt.Errorf("cannot open the embedded demo catalog: %w", fallback)
		}
	}
	return nil
}

// open opens a tool source and makes it the server's catalog.
func (s *Server) open(src Source) error {
	if s.opts.Open == nil {
		return errors.New("no way to open tool sources")
	}
	cat, closeFn, err := s.opts.Open(context.Background(), src)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeCat != nil {
		s.closeCat()
	}
	s.cat, s.closeCat = cat, closeFn
	return nil
}

func (s *Server) shutdown(*glsp.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutDown = true
	if s.closeCat != nil {
		err := s.closeCat()
		s.closeCat = nil
		return err
	}
	return nil
}

func (s *Server) doc(uri string) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", uri)
	}
	return d, nil
}

func (s *Server) didOpen(_ *glsp.Context, params *protocol.DidOpenTextDocumentParams) error {
	d := newDocument(params.TextDocument.URI, params.TextDocument.Version, params.TextDocument.Text)
	s.mu.Lock()
	s.docs[d.uri] = d
	s.mu.Unlock()
	s.schedule(d)
	return nil
}

// didChange applies the changes to the document. A change the server
// cannot apply (a range past the end of its text) means its text is no
// longer the editor's: the server cannot ask for the text again (LSP has
// no such request), and every later incremental change would land in the
// wrong place. So it refuses the change, tells the user in an error
// message and the log, clears the file's diagnostics (their ranges would
// be wrong) and forgets the document, as if the editor had closed it:
// requests on it then answer "not open", and the editor's next didOpen
// (closing and reopening the file) brings the two back in step.
func (s *Server) didChange(ctx *glsp.Context, params *protocol.DidChangeTextDocumentParams) error {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return err
	}
	s.changing.Add(1)
	defer s.changing.Add(-1)
	s.poke()
	if err = d.change(params.TextDocument.Version, params.ContentChanges); err == nil {
		s.schedule(d)
		return nil
	}
	s.mu.Lock()
	if s.docs[d.uri] == d {
		delete(s.docs, d.uri)
	}
	delete(s.dirty, d)
	s.mu.Unlock()
	msg := fmt.Sprintf("planctl lsp: a change to %s was refused (%v): the server's copy of the file is out of step with the editor's, so it stopped checking the file; close and reopen it", d.uri, err)
	if s.opts.Log != nil {
		fmt.Fprintln(s.opts.Log, msg)
	}
	ctx.Notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
	ctx.Notify(string(protocol.ServerTextDocumentPublishDiagnostics),
		protocol.PublishDiagnosticsParams{URI: d.uri, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

func (s *Server) didClose(ctx *glsp.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[params.TextDocument.URI]
	delete(s.docs, params.TextDocument.URI)
	delete(s.dirty, d)
	s.mu.Unlock()
	// The problems of a closed file are no longer the editor's to show.
	ctx.Notify(string(protocol.ServerTextDocumentPublishDiagnostics),
		protocol.PublishDiagnosticsParams{URI: params.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// schedule marks d for diagnostics. The publisher validates the latest
// text of each marked document once the changes pause for Options.Quiet,
// however many came meanwhile: a burst of changes costs one validation,
// not one each.
func (s *Server) schedule(d *document) {
	s.mu.Lock()
	s.dirty[d] = true
	s.mu.Unlock()
	s.poke()
}

// poke tells the publisher that a change came: its quiet period starts again.
func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Server) publisher() {
	quiet := s.opts.Quiet
	if quiet == 0 {
		quiet = DefaultQuiet
	}
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		if quiet > 0 {
			t := time.NewTimer(quiet)
		pause:
			for {
				select {
				case <-s.done:
					t.Stop()
					return
				case <-s.wake:
					t.Reset(quiet)
				case <-t.C:
					if s.changing.Load() > 0 {
						t.Reset(quiet) // the change being applied ends the pause
						continue
					}
					break pause
				}
			}
		}
		s.mu.Lock()
		var docs []*document
		for d := range s.dirty {
			docs = append(docs, d)
		}
		clear(s.dirty)
		notify := s.notify
		s.mu.Unlock()
		for _, d := range docs {
			v, err := d.view(context.Background())
			if err != nil {
				continue
			}
			params := s.diagnostics(v)
			v.release()
			s.mu.Lock()
			open := s.docs[d.uri] == d
			s.mu.Unlock()
			if notify != nil && open {
				notify(string(protocol.ServerTextDocumentPublishDiagnostics), params)
			}
		}
	}
}

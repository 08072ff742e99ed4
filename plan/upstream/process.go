package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// process is a stdio MCP server planctl started: its pipes, its exit, the
// tail of its stderr, and the protocol violation that made planctl stop it.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	exited chan struct{}
	tail   *tailBuffer

	mu       sync.Mutex
	waitErr  error
	garbage  string // a non-JSON line the server wrote after the handshake began
	oversize int64  // the bound (Config.MaxMessage) a message from the server crossed
}

func startProcess(cfg Config) (*process, error) {
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = childEnv(os.Environ(), cfg.PassEnv, cfg.Env)
	cmd.Dir = cfg.Dir
	setProcessGroup(cmd)
	p := &process{cmd: cmd, exited: make(chan struct{}), tail: &tailBuffer{max: 2048}}
	var stderr io.Writer = p.tail
	if cfg.ServerLog != nil {
		stderr = io.MultiWriter(cfg.ServerLog, p.tail)
	}
	cmd.Stderr = stderr
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("cannot start %s: %w", cfg.Command[0], err)
	}
	pw.Close()
	p.stdin, p.stdout = stdin, pr
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

// DefaultEnv is the part of planctl's environment a stdio server gets,
// besides its config entry's "env" and --pass-env: what the MCP SDKs'
// own hosts pass (the TypeScript SDK's DEFAULT_INHERITED_ENV_VARS, the
// Python SDK's DEFAULT_INHERITED_ENV_VARS, Windows' set there), plus the
// locale, so a server finds its interpreter and home and speaks the
// user's language, and nothing else: planctl's own secrets
// (PLANCTL_AUTH_TOKEN, cloud keys) stay with planctl.
var DefaultEnv = defaultEnv(runtime.GOOS)

func defaultEnv(goos string) []string {
	if goos == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LANGUAGE", "LC_*"}
}

// childEnv is a stdio server's environment: the DefaultEnv and pass
// variables of env, then extra ("K=V", which wins). A default variable
// whose value starts with "()" is a shell function (what Shellshock rode
// in on) and is left out, as the SDKs leave it out.
func childEnv(env, pass, extra []string) []string {
	same := func(a, b string) bool { return a == b }
	if runtime.GOOS == "windows" {
		same = strings.EqualFold // Path is PATH there
	}
	def := func(k string) bool {
		for _, d := range DefaultEnv {
			if same(d, k) || strings.HasSuffix(d, "*") && strings.HasPrefix(k, strings.TrimSuffix(d, "*")) {
				return true
			}
		}
		return false
	}
	passed := func(k string) bool {
		for _, p := range pass {
			if same(p, k) {
				return true
			}
		}
		return false
	}
	out := make([]string, 0, len(DefaultEnv)+len(pass)+len(extra))
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if passed(k) || def(k) && !strings.HasPrefix(v, "()") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// guard returns the server's stdout as the transport reads it: JSON lines
// only. Lines before the first JSON message (banners) go to the server log;
// a non-JSON line after it breaks the stdio protocol, so the server is
// stopped and every pending call fails with that line quoted, instead of
// waiting for an answer that will never be read.
//
// A line longer than max bytes (when max > 0) stops the server the same
// way, before more of it is read: a server must not make planctl hold a
// message of any size.
//
// An answer to a tools/call in pending (by its JSON-RPC id, found in the
// line's first bytes) is counted as it is read: its bytes are taken from
// the call's lease (runner.Reserve), and it is read no further than the
// call's answerBound. Past either, the rest of the line is read and
// dropped, and the call is answered with an error in its place, so the
// server stays up and planctl never holds the answer whole.
func (p *process) guard(log io.Writer, max int64, pending *sync.Map) io.Reader {
	return &lineGuard{r: bufio.NewReaderSize(p.stdout, 64<<10), p: p, log: log, max: max, pending: pending}
}

type lineGuard struct {
	r       *bufio.Reader
	p       *process
	log     io.Writer
	max     int64
	buf     []byte
	started bool
	pending *sync.Map // the tools/call in flight, by raw JSON-RPC id: *callState
}

// idScan is how much of a line is searched for its JSON-RPC id: a
// server writes it before the result (every SDK does).
const idScan = 1 << 20

// readLine is bufio.Reader.ReadBytes('\n') that gives up, reporting
// errOversize, once the line is longer than g.max. A long line is kept
// as its fragments and joined once whole: a line stopped at a bound
// (dropRest) never costs the copies of a growing slice.
func (g *lineGuard) readLine() ([]byte, error) {
	var head, id []byte // head: the line's first idScan bytes and more, where its id is
	var frags [][]byte
	size := 0
	var cs *callState
	for {
		frag, err := g.r.ReadSlice('\n')
		if g.max > 0 && int64(size+len(frag)) > g.max {
			return nil, errOversize
		}
		size += len(frag)
		counted := len(frag)
		if size-len(frag) < idScan {
			head = append(head, frag...)
			if id == nil && g.pending != nil {
				if id = jsonrpcID(head); id != nil {
					if v, ok := g.pending.Load(string(id)); ok {
						cs, counted = v.(*callState), size
					}
				}
			}
		} else {
			frags = append(frags, bytes.Clone(frag))
		}
		if cs != nil {
			if cs.bound > 0 && int64(size) > cs.bound {
				cs.over.Store(cs.bound)
				return g.dropRest(id, err, fmt.Sprintf("planctl stopped reading the upstream server's answer past %s, the most a result under --max-result takes", plan.ByteSize(cs.bound)))
			}
			if rerr := runner.Reserve(cs.ctx, answerShare*int64(counted)); rerr != nil {
				e := fmt.Errorf("planctl stopped reading the upstream server's answer: %w", rerr)
				cs.stop.Store(e)
				return g.dropRest(id, err, e.Error())
			}
		}
		if err != bufio.ErrBufferFull {
			if len(frags) == 0 {
				return head, err
			}
			line := make([]byte, 0, size)
			line = append(line, head...)
			for _, f := range frags {
				line = append(line, f...)
			}
			return line, err
		}
	}
}

// dropRest reads the rest of the line without keeping it and returns, in
// its place, a JSON-RPC error answer to id saying why.
func (g *lineGuard) dropRest(id []byte, err error, why string) ([]byte, error) {
	for err == bufio.ErrBufferFull {
		_, err = g.r.ReadSlice('\n')
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	msg, _ := json.Marshal(why)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`+"\n", id, msg), err
}

var errOversize = errors.New("a message over the bound")

func (g *lineGuard) Read(b []byte) (int, error) {
	for len(g.buf) == 0 {
		line, err := g.readLine()
		if err == errOversize {
			g.p.mu.Lock()
			g.p.oversize = g.max
			g.p.mu.Unlock()
			g.p.kill()
			return 0, io.EOF
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && (err == nil || err == io.EOF) {
			if json.Valid(t) {
				g.started = true
				g.buf = append(t, '\n')
			} else if !g.started {
				if g.log != nil {
					fmt.Fprintf(g.log, "[planctl] ignored non-JSON output on stdout before the handshake: %s\n", t)
				}
			} else {
				g.p.setGarbage(string(t))
				g.p.kill()
				return 0, io.EOF
			}
		}
		if err != nil && len(g.buf) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(b, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func (p *process) setGarbage(line string) {
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	p.mu.Lock()
	if p.garbage == "" {
		p.garbage = line
	}
	p.mu.Unlock()
}

// fault describes why the connection to the process ended, waiting a
// little for the exit status when the pipe closed first.
func (p *process) fault() string {
	p.mu.Lock()
	garbage, oversize := p.garbage, p.oversize
	p.mu.Unlock()
	if oversize > 0 {
		return fmt.Sprintf("upstream server sent a message of more than %s, planctl's bound on one message from an MCP server; planctl stopped reading it and stopped the server: ask the tool for less", plan.ByteSize(oversize))
	}
	if garbage != "" {
		return fmt.Sprintf("upstream server wrote something that is not JSON-RPC on stdout: %q (a stdio MCP server may write only JSON-RPC messages there; logs belong on stderr); planctl stopped it", garbage)
	}
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		// It can no longer answer anything: stop it rather than leave it.
		p.kill()
		return "upstream server closed its stdout but was still running, so it can answer nothing more; planctl stopped it"
	}
	p.mu.Lock()
	err := p.waitErr
	p.mu.Unlock()
	status := "with status 0"
	if err != nil {
		status = strings.TrimPrefix(err.Error(), "exit ")
	}
	msg := "upstream server exited: " + status
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		msg += "; its stderr ended with: " + t
	}
	return msg
}

// alive reports whether the server still runs. cmd.Wait reaps the
// process first and returns (closing exited) only once its stderr is
// copied, so between the two exited says nothing yet: reaped asks the
// system in that while.
func (p *process) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return !reaped(p.cmd)
	}
}

// stop closes stdin, then asks the process group to end, then kills it.
func (p *process) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		terminate(p.cmd)
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
			p.kill()
			<-p.exited
		}
	}
	p.stdout.Close()
}

func (p *process) kill() { killGroup(p.cmd) }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	s := strings.TrimSpace(string(t.b))
	t.mu.Unlock()
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " | ")
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/planctl/planctl/plan/mcpserver"
)

// startDebugListener serves Go's runtime figures for serve --debug-addr:
// /debug/vars ({"goroutines": N, "memstats": {...}}) and the runtime
// profiles under /debug/pprof/ (goroutine, heap, profile, ...). It is off
// unless asked for, and binds only a loopback address: it has no
// authentication, and a CPU profile slows the process. The command line
// (which may hold --auth-token) is deliberately not served: no expvar
// "cmdline", no /debug/pprof/cmdline.
func startDebugListener(addr string, s *streams, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	a := addr
	if _, _, err := net.SplitHostPort(a); err != nil {
		a = net.JoinHostPort("127.0.0.1", a)
	}
	host, _, err := net.SplitHostPort(a)
	if err != nil {
		return nil, usage(fmt.Errorf("--debug-addr %q is not host:port or a port: %w", addr, err))
	}
	if host == "" {
		a = "127.0.0.1" + a
	} else if !mcpserver.IsLoopbackHost(host) {
		return nil, usage(errors.New("--debug-addr must be a loopback address (127.0.0.1:PORT, [::1]:PORT or a port): the debug endpoints have no authentication"))
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fatal(fmt.Errorf("cannot listen on --debug-addr %s: %w", a, err))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/vars", func(w http.ResponseWriter, _ *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"goroutines": runtime.NumGoroutine(), "memstats": ms})
	})
	// net/http/pprof's handlers, but not Cmdline: the command line may hold
	// --auth-token (under the index, /debug/pprof/cmdline is an unknown
	// profile, 404).
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// A loopback address with a foreign Host is DNS rebinding: a web page
	// reading the profiles through the browser.
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !mcpserver.IsLoopbackHost(host) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not a loopback name", r.Host), http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
	hs := &http.Server{Handler: guarded, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/debug/"
	fmt.Fprintf(s.errOut, "planctl: debug endpoints at %s\n", url)
	log.Info("debug endpoints (expvar, pprof)", "url", url)
	go hs.Serve(ln)
	return func() { hs.Close() }, nil
}

package cli

import (
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// handleProfiles serves the runtime profiles of runtime/pprof under
// /debug/pprof/ for --debug-addr, at the paths and with the parameters of
// net/http/pprof, which `go tool pprof` reads:
//
//	/debug/pprof/                   the list of profiles
//	/debug/pprof/NAME?debug=N&gc=1  goroutine, heap, allocs, threadcreate, block, mutex
//	/debug/pprof/profile?seconds=N  a CPU profile (30 s by default)
//	/debug/pprof/trace?seconds=N    an execution trace (1 s by default)
//
// Not net/http/pprof itself: importing it registers its handlers on
// http.DefaultServeMux when the package initializes, in every planctl
// process, and links html/template and internal/profile; that cost 0.7 MB
// of peak RSS in every validate and run (docs/performance.md, "Fixed cost
// of a process"), for endpoints off unless --debug-addr asks for them.
// Left out: /debug/pprof/cmdline (never served: it may hold --auth-token),
// /debug/pprof/symbol (Go's profiles carry their symbols) and delta
// profiles (/debug/pprof/heap?seconds=N is refused with a 400 that says so).
func handleProfiles(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/")
		if name == "" {
			profileIndex(w)
			return
		}
		p := pprof.Lookup(name)
		if p == nil {
			http.Error(w, fmt.Sprintf("Unknown profile %q: see /debug/pprof/ for the list", name), http.StatusNotFound)
			return
		}
		if r.FormValue("seconds") != "" {
			http.Error(w, fmt.Sprintf("A delta %s profile (?seconds) is not served here: take two and compare them with go tool pprof -diff_base", name), http.StatusBadRequest)
			return
		}
		debug, _ := strconv.Atoi(r.FormValue("debug"))
		if name == "heap" && r.FormValue("gc") != "" {
			runtime.GC()
		}
		profileHeader(w, name, debug)
		p.WriteTo(w, debug)
	})
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		d, ok := seconds(w, r, 30*time.Second)
		if !ok {
			return
		}
		profileHeader(w, "profile", 0)
		if err := pprof.StartCPUProfile(w); err != nil {
			profileBusy(w, err)
			return
		}
		wait(r, d)
		pprof.StopCPUProfile()
	})
	mux.HandleFunc("/debug/pprof/trace", func(w http.ResponseWriter, r *http.Request) {
		d, ok := seconds(w, r, time.Second)
		if !ok {
			return
		}
		profileHeader(w, "trace", 0)
		if err := trace.Start(w); err != nil {
			profileBusy(w, err)
			return
		}
		wait(r, d)
		trace.Stop()
	})
}

// profileIndex lists the profiles with their counts.
func profileIndex(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "planctl runtime profiles (go tool pprof http://HOST/debug/pprof/NAME):")
	for _, p := range pprof.Profiles() {
		fmt.Fprintf(w, "%6d %s (?debug=1 for text)\n", p.Count(), p.Name())
	}
	fmt.Fprintln(w, "       profile (CPU, ?seconds=30)")
	fmt.Fprintln(w, "       trace (execution trace, ?seconds=1)")
}

// profileHeader sets the content type: text for debug > 0, else the
// binary profile as a download, as net/http/pprof does.
func profileHeader(w http.ResponseWriter, name string, debug int) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if debug > 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
}

// seconds reads ?seconds=N (default def), answering 400 when it is not a
// positive number.
func seconds(w http.ResponseWriter, r *http.Request, def time.Duration) (time.Duration, bool) {
	v := r.FormValue("seconds")
	if v == "" {
		return def, true
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || n > 3600 {
		http.Error(w, fmt.Sprintf("Bad seconds %q: give a number of seconds from 0 to 3600", v), http.StatusBadRequest)
		return 0, false
	}
	return time.Duration(n * float64(time.Second)), true
}

// profileBusy answers a profile that is already being taken.
func profileBusy(w http.ResponseWriter, err error) {
	w.Header().Del("Content-Disposition")
	http.Error(w, fmt.Sprintf("Could not start the profile: %v (one at a time)", err), http.StatusInternalServerError)
}

// wait waits d, or less if the client goes away.
func wait(r *http.Request, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}

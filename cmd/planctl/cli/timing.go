package cli

import (
	"fmt"
	"os"
	"time"
)

// timing appends "EVENT UNIXNANO" to the file PLANCTL_TIMING names, when
// it is set: a measuring aid, not a feature. .ci/bench/debugframe.sh times
// the debugger's first frame from the "read" line (the plan file read,
// before it is parsed). Errors are ignored: a measurement never fails a
// command.
func timing(event string) {
	path := os.Getenv("PLANCTL_TIMING")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", event, time.Now().UnixNano())
	f.Close()
}

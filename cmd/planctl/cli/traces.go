package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/trace"
	"github.com/spf13/cobra"
)

func newTracesCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "traces DIR",
		Short: "List the traces in a directory (serve --record's), newest first",
		Long: `List the traces in DIR, newest first: when each was written, the session
that sent the plan (serve --record), how it ended (completed, partial, refused)
and where it failed. Open one with 'planctl debug TRACE'.`,
		Example: `  planctl serve --http :8080 --record traces/
  planctl traces traces/
  planctl debug --repl traces/plan-20261203T110628.123456Z-000007.json`,
		Args: exactArgs(1, "one DIR"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(c *cobra.Command, args []string) error { return listTraces(s, args[0]) },
	}
}

type traceRow struct {
	at                                      time.Time
	written, session, status, failure, file string
}

func listTraces(s *streams, dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fatal(fmt.Errorf("cannot list the traces: %w", err))
	}
	var rows []traceRow
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !isTraceFile(path) {
			continue
		}
		t, err := trace.Read(path)
		if err != nil {
			info, _ := e.Info()
			at := info.ModTime()
			rows = append(rows, traceRow{at: at, written: at.UTC().Format(shownTime), session: "-", status: "unreadable", failure: clip(err.Error()), file: path})
			continue
		}
		rows = append(rows, traceSummary(t, path))
	}
	// The file name breaks ties.
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].at.Equal(rows[j].at) {
			return rows[i].at.After(rows[j].at)
		}
		return rows[i].file > rows[j].file
	})
	if len(rows) == 0 {
		fmt.Fprintf(s.errOut, "planctl: no traces in %s\n", dir)
		return nil
	}
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "WRITTEN\tSESSION\tSTATUS\tFAILED\tTRACE")
	for _, r := range rows {
		// A trace's fields are anyone's text (a client's session id, a
		// tool's error): escaped for the terminal.
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", jsontext.EscapeText(r.written), jsontext.EscapeText(r.session), jsontext.EscapeText(r.status), jsontext.EscapeText(r.failure), jsontext.EscapeText(r.file))
	}
	return w.Flush()
}

func traceSummary(t *trace.Trace, path string) traceRow {
	r := traceRow{written: t.Written, session: "-", status: t.Status, failure: "-", file: path}
	if at, err := time.Parse(time.RFC3339Nano, t.Written); err == nil {
		r.at, r.written = at, at.UTC().Format(shownTime)
	}
	if sv := t.Served; sv != nil {
		if sv.Session != "" {
			r.session = sv.Session
		}
		if sv.Refused != "" {
			r.status, r.failure = "refused", clip(sv.Refused)
			return r
		}
	}
	if t.Status == "running" {
		r.status = "stopped" // recorded before its end: a run stopped by the user
	}
	for _, st := range t.Steps {
		if st.Status == "error" && st.Error != nil {
			r.failure = clip(st.ID + ": " + *st.Error)
		}
	}
	return r
}

// shownTime is how traces shows a time: to the millisecond, in UTC.
const shownTime = "2006-01-02T15:04:05.000Z"

// clip keeps a table cell to one short line.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 72 {
		return string(r[:71]) + "…"
	}
	return s
}

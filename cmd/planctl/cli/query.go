package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
	querypkg "github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/tui"
	"github.com/spf13/cobra"
)

func newQueryCmd(s *streams) *cobra.Command {
	var compact bool
	c := &cobra.Command{
		Use:   "query TRACE QUERY",
		Short: "Print the value of a gjson query over the results of a recorded run",
		Long: `Print the value of a gjson query (github.com/tidwall/gjson syntax) over a recorded
run (a trace from run --trace, debug's trace command or serve --record), read as one
JSON object {step id: result} of the steps that ended ok. Numbers are printed exactly
as the tools wrote them.

  backup.size_bytes              a key of a step's result
  migrate.applied.#              the length of an array
  migrate.applied.#.version      a key of each element
  forecast.#(high_c>20)#.date    the elements that match, then a key of each
  migrate.applied|@reverse       a modifier
  odd.a\.b                       a key with . * ? # @ | ! or \ in it: a backslash before each

The same queries serve debug's query, display and break STEP if QUERY, and run --query.
Exit code: 0 a value, 1 nothing matched (the message says which part), 2 bad command
line, 3 an unreadable trace.`,
		Example: `  planctl run --trace run.json samples/migration.json
  planctl query run.json backup.size_bytes
  planctl query run.json 'migrate.applied.#.name'`,
		Args: exactArgs(2, "a TRACE and a QUERY"),
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(args[1]) == "" {
				return usage(errors.New("the query is blank: give a gjson query, e.g. backup.size_bytes"))
			}
			t, err := trace.Read(args[0])
			if err != nil {
				return fatal(err)
			}
			root, err := t.QueryRoot()
			if err != nil {
				return fatal(err)
			}
			v, err := querypkg.Eval(root, args[1])
			if err != nil {
				// the trace holds the failed steps the query root leaves out
				err = querypkg.ExplainFailed(err, func(id string) (string, bool) {
					for i := len(t.Steps) - 1; i >= 0; i-- {
						if st := t.Steps[i]; st.ID == id && st.Status == runner.StepError.String() && st.Error != nil {
							return *st.Error, true
						}
					}
					return "", false
				})
				return &exitError{code: ExitFailed, err: err}
			}
			if compact {
				v = jsontext.AppendCompact(nil, v)
			} else {
				v = jsontext.Indent(v)
			}
			if tui.IsTerminal(s.out) {
				// to be read: hidden characters as escapes; a pipe gets the bytes
				v = jsontext.AppendDisplay(nil, v)
			}
			s.out.Write(v)
			fmt.Fprintln(s.out)
			return nil
		},
	}
	c.Flags().BoolVar(&compact, "compact", false, "print the value on one line")
	return c
}

package cli

import (
	"os"
	"slices"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/plan/upstream"
	"github.com/spf13/cobra"
)

// Shell completion of flag values (planctl completion bash|zsh|fish|powershell
// writes the script; cobra's hidden __complete command answers it). Each
// command registers its flags' completions beside the flags; these are the
// functions they use.

type completeFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// completeWords offers a fixed list of values, such as a flag's formats.
func completeWords(words ...string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(words, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// withPrefix keeps the candidates ("value" or "value\tdescription") that
// start with what has been typed.
func withPrefix(candidates []string, typed string) []string {
	out := make([]string, 0, len(candidates))
	for _, c := range candidates {
		if strings.HasPrefix(c, typed) {
			out = append(out, c)
		}
	}
	return out
}

// completeCodes offers the diagnostic codes, each with its summary, for
// --ignore; after a comma (--ignore A,B) it completes the last code.
func completeCodes(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix = toComplete[:i+1]
	}
	out := make([]string, 0, len(plan.Codes))
	for _, c := range plan.Codes {
		out = append(out, prefix+c.ID+"\t"+c.Summary)
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeSteps offers the step ids of the plan given as the first
// argument (for --break), each with its tool: a plan file, or a trace
// (debug TRACE, or --replay TRACE with PLAN left out) for the plan it
// recorded. Nothing when the plan is standard input or cannot be read.
// Shells pass only the words before the cursor, so the plan must come
// before --break.
func completeSteps(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	path, _ := c.Flags().GetString("replay")
	if len(args) > 0 {
		path = args[0]
	}
	// Only a regular file: reading a pipe or a device could hang the shell.
	if fi, err := os.Stat(path); path == "-" || err != nil || !fi.Mode().IsRegular() {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var p *plan.Plan
	if len(args) == 0 || isTraceFile(path) {
		t, err := trace.Read(path)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		p = t.LoadPlan(plan.Limits{})
	} else {
		fh, err := regfile.Open(path)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer fh.Close()
		data, err := plan.ReadPlan(fh, plan.DefaultMaxBytes)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		p = plan.Load(path, data, plan.Limits{})
	}
	out := make([]string, 0, len(p.Steps))
	for _, st := range p.Steps {
		out = append(out, st.Label()+"\t"+toolLabel(st))
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeServerNames offers the servers of the --config file given
// before --name.
func completeServerNames(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	path, _ := c.Flags().GetString("config")
	// Only a regular file: reading a pipe or a device could hang the shell.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, err := upstream.ServerNames(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	// --name takes a list: complete its last name, after those given.
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for _, n := range withPrefix(names, last) {
		if !slices.Contains(strings.Split(done, ","), n) {
			out = append(out, done+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

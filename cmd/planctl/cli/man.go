package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCmd writes the man pages, one per command, generated from the
// commands themselves: a packager runs it at build time. It is hidden: it
// is not for everyday use.
//
// The pages are written here, not by cobra's doc package: that goes
// through go-md2man and blackfriday, whose table of HTML entities (2,000
// map entries, 0.2 MB) every planctl process built as it started, for
// this one hidden command; github.com/muesli/roff, the roff writer at
// hand, passes the text as a Printf format and makes every newline a
// paragraph. roff needs little: the few macros below and its escapes.
func newManCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write planctl's man pages (section 1) into DIR",
		Hidden: true,
		Args:   exactArgs(1, "one DIR to write the man pages to"),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fatal(fmt.Errorf("cannot create the man page folder: %w", err))
			}
			if err := writeManPages(c.Root(), dir); err != nil {
				return fatal(fmt.Errorf("cannot write the man pages: %w", err))
			}
			fmt.Fprintf(s.errOut, "planctl: man pages written to %s\n", dir)
			return nil
		},
	}
}

// writeManPages writes c's page and its subcommands' (those the help
// lists), as planctl-run.1 for "planctl run".
func writeManPages(c *cobra.Command, dir string) error {
	for _, sub := range manChildren(c) {
		if err := writeManPages(sub, dir); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	return os.WriteFile(filepath.Join(dir, name+".1"), manPage(c), 0o644)
}

// manChildren are c's subcommands the help lists (not hidden, not help).
func manChildren(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() { // sorted by name
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			out = append(out, sub)
		}
	}
	return out
}

// manPage is c's page: no date, so that a build's pages are the same
// whenever they are made.
func manPage(c *cobra.Command) []byte {
	c.InitDefaultHelpFlag()
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	var b strings.Builder
	// after .TH, which sets them: no hyphens, ragged right
	fmt.Fprintf(&b, ".TH \"PLANCTL\" \"1\" \"\" \"planctl %s\" \"planctl manual\"\n.nh\n.ad l\n", roffEscape(Version))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roffEscape(name), roffEscape(c.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n\\fB%s\\fP\n", roffEscape(c.UseLine()))
	long := c.Long
	if long == "" {
		long = c.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	roffText(&b, long)
	manFlags(&b, "OPTIONS", c.NonInheritedFlags())
	manFlags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if c.Example != "" {
		b.WriteString(".SH EXAMPLE\n")
		roffVerbatim(&b, c.Example)
	}
	var see []string
	if c.HasParent() {
		see = append(see, `\fB`+roffEscape(strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))+`(1)\fP`)
	}
	for _, sub := range manChildren(c) {
		see = append(see, `\fB`+roffEscape(name+"-"+sub.Name())+`(1)\fP`)
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
	return []byte(b.String())
}

// manFlags lists the flags of fs the help shows under heading.
func manFlags(b *strings.Builder, heading string, fs *pflag.FlagSet) {
	first := true
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		if first {
			fmt.Fprintf(b, ".SH %s\n", heading)
			first = false
		}
		arg, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			fmt.Fprintf(b, `\fB-%s\fP, `, roffEscape(f.Shorthand))
		}
		fmt.Fprintf(b, `\fB--%s\fP`, roffEscape(f.Name))
		if arg != "" && f.NoOptDefVal == "" {
			fmt.Fprintf(b, ` \fI%s\fP`, roffEscape(arg))
		}
		b.WriteString("\n")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" && f.NoOptDefVal == "" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		b.WriteString(roffLine(strings.ReplaceAll(usage, "\n", " ")) + "\n")
	})
}

// roffText writes text's paragraphs (split at blank lines): a paragraph
// with an indented line is shown as typed (an example, a list), the others
// are filled.
func roffText(b *strings.Builder, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if strings.Contains(para, "\n ") || strings.Contains(para, "\n\t") || strings.HasPrefix(para, " ") {
			roffVerbatim(b, para)
			continue
		}
		b.WriteString(".PP\n" + roffLine(strings.Join(strings.Fields(para), " ")) + "\n")
	}
}

// roffVerbatim writes text as typed, indented, in a block roff does not fill.
func roffVerbatim(b *strings.Builder, text string) {
	b.WriteString(".PP\n.RS\n.nf\n")
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(roffLine(l) + "\n")
	}
	b.WriteString(".fi\n.RE\n")
}

// roffLine escapes a line of text: its backslashes, and a leading . or '
// that roff would take for a request.
func roffLine(s string) string {
	s = roffEscape(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func roffEscape(s string) string { return strings.ReplaceAll(s, `\`, `\e`) }

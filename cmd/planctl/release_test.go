package main

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// --version prints what the toolchain recorded in the binary, as
// `go version -m` reads it: the module version, then the VCS revision,
// time and "modified" when the build stamped them.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	out, err := clitest.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	modVersion, vcs := "", map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			modVersion = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs."):
			k, v, _ := strings.Cut(f[1], "=")
			vcs[k] = v
		}
	}
	want := "planctl version " + modVersion
	var details []string
	if rev := vcs["vcs.revision"]; rev != "" {
		details = append(details, "revision "+rev[:12])
	}
	if vcs["vcs.time"] != "" {
		details = append(details, vcs["vcs.time"])
	}
	if vcs["vcs.modified"] == "true" {
		details = append(details, "modified")
	}
	if len(details) > 0 {
		want += " (" + strings.Join(details, ", ") + ")"
	}
	r := planctl(t, "", "--version")
	if r.code != 0 || r.stdout != want+"\n" {
		t.Errorf("--version: exit %d, %q; want %q (go version -m:\n%s)", r.code, r.stdout, want, out)
	}
}

// `go install github.com/planctl/planctl/cmd/planctl@VERSION` makes a binary
// whose --version is VERSION. The module is served from a file-based module
// proxy built from this checkout (the dependencies from the module cache's
// download folder), installed into a throw-away module cache; -trimpath
// lets later runs reuse the compiled dependencies.
func TestVersionOfGoInstall(t *testing.T) {
	t.Parallel()
	clitest.Long(t, "go install of the whole module")
	files, err := clitest.Command("git", "-C", "../..", "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skip("not a git checkout: cannot list the module's files")
	}
	modcache, err := clitest.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// A version of its own each run: the go command indexes a module
	// version's files once and for all.
	version := fmt.Sprintf("v0.9.0-test.%d", time.Now().UnixNano())
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", "github.com", "planctl", "planctl", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
	os.WriteFile(filepath.Join(at, version+".info"), []byte(`{"Version":"`+version+`"}`), 0o644)
	os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644)
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	names := strings.Split(strings.TrimSpace(string(files)), "\n")
	slices.Sort(names)
	for _, name := range slices.Compact(names) { // a file in a merge conflict is listed once per stage
		data, err := os.ReadFile(filepath.Join("../..", name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create("github.com/planctl/planctl@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()

	bin := filepath.Join(tmp, "bin")
	cmd := clitest.Command("go", "install", "-trimpath", "github.com/planctl/planctl/cmd/planctl@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOBIN="+bin, "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	out, err := clitest.Command(filepath.Join(bin, "planctl"), "--version").Output()
	if err != nil || string(out) != "planctl version "+version+"\n" {
		t.Errorf("--version of the installed binary: %q, %v; want %q", out, err, "planctl version "+version)
	}
}

// Flag values complete in the shells (cobra's __complete answers the
// completion scripts): each command's formats, the diagnostic codes, the
// steps of the plan given, the servers of the --config file, and files.
func TestFlagCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	os.WriteFile(config, []byte(`{"mcpServers": {"memory": {"command": "npx"}, "remote": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o644)
	trace := filepath.Join(dir, "backup.trace.json")
	if r := planctl(t, "", "run", "--trace", trace, "samples/backup.json"); r.code != 0 {
		t.Fatalf("run --trace: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args      []string
		want      []string // the candidates, in order
		directive string   // cobra's ShellCompDirective, as the number it prints
	}{
		{[]string{"validate", "--format", ""}, []string{"text", "json", "sarif", "github"}, "4"},
		{[]string{"tools", "--format", ""}, []string{"table", "json", "concierge"}, "4"},
		{[]string{"graph", "--format", ""}, []string{"mermaid", "dot"}, "4"},
		{[]string{"graph", "--format", "d"}, []string{"dot"}, "4"},
		{[]string{"validate", "--ignore", "REF_F"}, []string{"REF_FORWARD\ta step references a later step"}, "4"},
		{[]string{"validate", "--ignore", "REF_SELF,MISSING_T"}, []string{"REF_SELF,MISSING_TOOL\ta step names no tool"}, "4"},
		{[]string{"debug", "samples/migration.json", "--break", ""}, []string{
			"backup\tcreate_backup", "check\tvalidate_backup", "migrate\trun_migration", "verify\tverify_migration", "announce\tnotify"}, "4"},
		{[]string{"debug", "--repl", "samples/migration.json", "--break", "v"}, []string{"verify\tverify_migration"}, "4"},
		{[]string{"debug", "no/such/plan.json", "--break", ""}, nil, "4"},
		{[]string{"debug", trace, "--break", ""}, []string{"backup\tcreate_backup", "validate\tvalidate_backup"}, "4"},            // a trace as PLAN
		{[]string{"debug", "--replay", trace, "--break", "v"}, []string{"validate\tvalidate_backup"}, "4"},                        // the plan it recorded
		{[]string{"debug", "--replay", trace, "samples/migration.json", "--break", "m"}, []string{"migrate\trun_migration"}, "4"}, // PLAN wins
		{[]string{"run", "--config", config, "--name", ""}, []string{"memory", "remote"}, "4"},
		{[]string{"run", "--config", "no/such.json", "--name", ""}, nil, "4"},
		{[]string{"run", "--catalog", ""}, []string{"json"}, "8"}, // files ending .json
		{[]string{"validate", "--replay", ""}, []string{"json"}, "8"},
		{[]string{"run", "--trace", ""}, []string{"json"}, "8"},
		{[]string{"serve", "--log", ""}, nil, "0"}, // any file
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := planctl(t, "", append([]string{"__complete"}, tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			got, directive := lines[:len(lines)-1], strings.TrimPrefix(lines[len(lines)-1], ":")
			if r.code != 0 || !slices.Equal(got, tc.want) || directive != tc.directive {
				t.Errorf("exit %d, candidates %q with directive %s; want %q with %s\n%s", r.code, got, directive, tc.want, tc.directive, r.stderr)
			}
		})
	}
}

// --break does not read a plan that is not a regular file: a pipe could
// hang the shell that asked. (Here standard input holds a plan, so a read
// would show.)
func TestBreakCompletionReadsOnlyFiles(t *testing.T) {
	t.Parallel()
	r := planctl(t, `[{"id": "a", "tool": "echo", "args": {}}]`, "__complete", "debug", "/dev/stdin", "--break", "")
	if r.code != 0 || r.stdout != ":4\n" {
		t.Errorf("exit %d, %q; want no candidates", r.code, r.stdout)
	}
}

// `planctl man DIR` writes one man page per command, found here from the
// help's own lists of commands, and each page renders.
func TestManPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := planctl(t, "", "man", dir)
	if r.code != 0 {
		t.Fatalf("man: exit %d\n%s", r.code, r.stderr)
	}
	commands := []string{"planctl"}
	for i := 0; i < len(commands); i++ {
		commands = append(commands, subcommands(t, commands[i])...)
	}
	if len(commands) < 8 {
		t.Fatalf("the help lists too few commands: %v", commands)
	}
	var want []string
	for _, c := range commands {
		want = append(want, strings.ReplaceAll(c, " ", "-")+".1")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("man pages:\n got %v\nwant %v", got, want)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "planctl-validate.1"))
	for _, s := range []string{`.TH "PLANCTL" "1"`, `planctl-validate \- Find every problem in`, `\fB--ignore\fP \fICODE\fP`} {
		if !strings.Contains(string(page), s) {
			t.Errorf("planctl-validate.1 lacks %q:\n%s", s, page)
		}
	}
	// man-db's parser of NAME sections, as mandb and whatis read them
	if _, err := exec.LookPath("lexgrog"); err == nil {
		out, err := clitest.Command("lexgrog", filepath.Join(dir, "planctl-validate.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"planctl-validate - Find every problem in plans before anything runs"`) {
			t.Errorf("lexgrog planctl-validate.1: %v\n%s", err, out)
		}
	}
	if _, err := exec.LookPath("groff"); err == nil {
		out, err := clitest.Command("groff", "-man", "-Tascii", "-P-cbou", "-ww", filepath.Join(dir, "planctl-validate.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "planctl validate PLAN") {
			t.Errorf("groff -man planctl-validate.1: %v\n%s", err, out)
		}
	}
}

// subcommands lists the commands `planctl ... --help` shows under
// "Available Commands", each with its parent's path ("planctl run").
func subcommands(t *testing.T, path string) []string {
	args := append(strings.Fields(path)[1:], "--help")
	r := planctl(t, "", args...)
	if r.code != 0 {
		t.Fatalf("%s --help: exit %d\n%s", path, r.code, r.stderr)
	}
	_, list, ok := strings.Cut(r.stdout, "Available Commands:\n")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  (\S+)`).FindAllStringSubmatch(list, -1) {
		if m[1] != "help" {
			out = append(out, path+" "+m[1])
		}
	}
	return out
}

// A command-line mistake says what is wrong, then where the usage is, on
// its own line.
func TestUsageHint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus", "samples/backup.json"}, "planctl: unknown flag: --bogus\nRun 'planctl run --help' for usage.\n"},
		{[]string{"graph"}, "planctl: planctl graph takes one PLAN (a path, or - for standard input); got: none\nRun 'planctl graph --help' for usage.\n"},
		{[]string{"tools", "x"}, "planctl: planctl tools takes no arguments (the tool source is given by flags); got: x\nRun 'planctl tools --help' for usage.\n"},
	} {
		r := planctl(t, "", tc.args...)
		if r.code != 2 || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// A catalog or server config that never ends (a device given by mistake)
// is refused at once, as a device, instead of being read until memory
// runs out (it was read up to a bound before); completion of --name gives
// nothing for it.
func TestEndlessInputsAreBounded(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	const notFile = "/dev/zero is a device, not a regular file: planctl reads plans, traces, catalogs and settings only from files (save the data to a file and give its path)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--catalog", "/dev/zero", "samples/backup.json"}, "planctl: cannot read the catalog: " + notFile},
		{[]string{"mock", "--catalog", "/dev/zero"}, "planctl: cannot read the catalog: " + notFile},
		{[]string{"run", "--config", "/dev/zero", "samples/backup.json"}, "planctl: cannot read the server config: " + notFile},
	} {
		r := planctl(t, "", tc.args...)
		if r.code != 3 || r.stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q; want exit 3, %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := planctl(t, "", "__complete", "run", "--config", "/dev/zero", "--name", ""); r.code != 0 || r.stdout != ":4\n" {
		t.Errorf("completing --name of /dev/zero: exit %d, %q", r.code, r.stdout)
	}
}

package editortest

// The configurations under editors/ that users paste, each checked by the
// program that reads it: Neovim runs the Lua (and its language client
// talks to the real planctl lsp), the TOML is decoded and its globs matched
// the way Helix matches them, actionlint checks the workflow, the hooks'
// file pattern is matched as pre-commit matches it, and the docs show each
// file as it is.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// editors is where the pasted configurations live.
const editors = root + "/editors"

// Paths that are plans under the default patterns, and JSON files that are not.
var (
	planPaths    = []string{"/home/me/proj/plans/backup.json", "/home/me/proj/plans/nightly/db.json", "/home/me/proj/ops/plans/a.json", "/home/me/proj/backup.plan.json", "/home/me/proj/ops/db.plan.json"}
	notPlanPaths = []string{"/home/me/proj/package.json", "/home/me/proj/tsconfig.json", "/home/me/proj/.vscode/launch.json", "/home/me/proj/myplans/a.json", "/home/me/proj/plans.json", "/home/me/proj/plan.json", "/home/me/proj/plans/notes.md"}
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// needNvim is Debian's nvim (installed by .ci/install.sh), or a skip outside CI.
func needNvim(t *testing.T) string {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim is missing: .ci/install.sh installs Debian's neovim")
		}
		t.Skip("nvim is missing: run bash .ci/install.sh")
	}
	return nvim
}

// runNvim runs a Lua harness in headless Neovim, in dir, with planctl first on
// PATH, and returns what the harness wrote to $PLANCTL_OUT.
func runNvim(t *testing.T, dir, harness string) []byte {
	t.Helper()
	nvim := needNvim(t)
	h := filepath.Join(t.TempDir(), "harness.lua")
	out := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(h, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := clitest.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+h, "-c", "qa!")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PLANCTL_OUT="+out,
		"PLANCTL_EDITORS="+absPath(t, editors))
	msg, err := cmd.CombinedOutput()
	data, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		t.Fatalf("nvim: %v %v\n%s", err, rerr, msg)
	}
	return data
}

// The LSP snippet, run by Neovim with its own client against the real
// planctl lsp: plan files (both patterns, one client for the project) get
// planctl's diagnostics; package.json and other JSON files get no client.
const nvimLSPHarness = `
dofile(os.getenv("PLANCTL_EDITORS") .. "/nvim/planctl-lsp.lua")
local function clients(buf)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = buf }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
end
-- The files that are not plans are opened first and looked at last: had
-- planctl been started for them, it would have attached by then, since the
-- plans' diagnostics come from the same client.
local files = { "package.json", "myplans/a.json", "plans/bad.json", "ops/nested/x.plan.json", "plans/deep/ok.json" }
local bufs = {}
-- All are opened before any is waited on, as a session restored at once
-- would: the plans of one project must still share one client.
for _, f in ipairs(files) do
  vim.cmd("edit " .. f)
  bufs[f] = vim.api.nvim_get_current_buf()
end
for _, f in ipairs(files) do
  local buf = bufs[f]
  if f:find("plan") and not f:find("myplans") then
    vim.wait(20000, function() return #clients(buf) > 0 end, 20)
    if not f:find("ok") then
      vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
    end
  end
end
local res = {}
for _, f in ipairs(files) do
  local buf = bufs[f]
  local r = { file = f, clients = {}, messages = {} }
  for _, c in ipairs(clients(buf)) do table.insert(r.clients, { id = c.id, name = c.name }) end
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(r.messages, d.message) end
  table.insert(res, r)
end
vim.fn.writefile({ vim.fn.json_encode(res) }, os.getenv("PLANCTL_OUT"))
`

func TestNeovimLSPSnippet(t *testing.T) {
	dir := t.TempDir()
	bad := `{"steps": [{"id": "a", "tool": "no_such_tool", "args": {}}]}`
	files := map[string]string{
		"plans/bad.json":         bad,
		"ops/nested/x.plan.json": bad,
		"plans/deep/ok.json":     readFile(t, root+"/samples/backup.json"),
		"package.json":           `{"name": "web", "version": "1.0.0"}`,
		"myplans/a.json":         `{"name": "not a plan"}`,
		".planctl.json":          `{}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []struct {
		File    string `json:"file"`
		Clients []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"clients"`
		Messages []string `json:"messages"`
	}
	data := runNvim(t, dir, nvimLSPHarness)
	if err := json.Unmarshal(data, &got); err != nil || len(got) != 5 {
		t.Fatalf("the harness wrote %s (%v)", data, err)
	}
	ids := map[int]bool{}
	for _, g := range got {
		isPlan := strings.HasPrefix(g.File, "plans/") || strings.HasSuffix(g.File, ".plan.json")
		if !isPlan {
			if len(g.Clients) != 0 || len(g.Messages) != 0 {
				t.Errorf("%s is not a plan, yet got clients %v and diagnostics %q", g.File, g.Clients, g.Messages)
			}
			continue
		}
		if len(g.Clients) != 1 || g.Clients[0].Name != "planctl" {
			t.Errorf("%s: clients %v, want planctl", g.File, g.Clients)
			continue
		}
		ids[g.Clients[0].ID] = true
		wantError := strings.Contains(files[g.File], "no_such_tool")
		hasError := slices.ContainsFunc(g.Messages, func(m string) bool { return strings.Contains(m, `"no_such_tool" is not in the catalog`) })
		if wantError != hasError {
			t.Errorf("%s: diagnostics %q", g.File, g.Messages)
		}
	}
	if len(ids) != 1 {
		t.Errorf("the plans of one project started %d planctl clients, want 1", len(ids))
	}
}

// The nvim-dap snippet adds its configuration to the user's JSON ones, and
// starts planctl dap. (cmd/planctl/daptest launches it; editors/vscode's
// tests do too.)
const nvimDAPHarness = `
local user = { type = "other", request = "launch", name = "mine" }
package.loaded.dap = { adapters = {}, configurations = { json = { user } } }
dofile(os.getenv("PLANCTL_EDITORS") .. "/nvim/planctl-dap.lua")
local dap = package.loaded.dap
local first = { adapter = dap.adapters.planctl, json = dap.configurations.json }
-- With no JSON configurations yet, it starts the list.
package.loaded.dap = { adapters = {}, configurations = {} }
dofile(os.getenv("PLANCTL_EDITORS") .. "/nvim/planctl-dap.lua")
first.fresh = package.loaded.dap.configurations.json
vim.fn.writefile({ vim.fn.json_encode(first) }, os.getenv("PLANCTL_OUT"))
`

func TestNeovimDAPSnippet(t *testing.T) {
	var got struct {
		Adapter map[string]any   `json:"adapter"`
		JSON    []map[string]any `json:"json"`
		Fresh   []map[string]any `json:"fresh"`
	}
	data := runNvim(t, t.TempDir(), nvimDAPHarness)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if got.Adapter["command"] != "planctl" || got.Adapter["type"] != "executable" {
		t.Errorf("adapter %v", got.Adapter)
	}
	if len(got.JSON) != 2 || got.JSON[0]["name"] != "mine" || got.JSON[1]["type"] != "planctl" {
		t.Errorf("the user's JSON configuration is not kept beside planctl's: %v", got.JSON)
	}
	if len(got.Fresh) != 1 || got.Fresh[0]["program"] != "${file}" || got.Fresh[0]["serverName"] != nil {
		t.Errorf("fresh: %v", got.Fresh)
	}
	for k := range got.Fresh[0] {
		if !slices.Contains([]string{"type", "request", "name", "program", "cwd", "stopOnEntry"}, k) {
			t.Errorf("the configuration has %q, which the extension's launch attributes do not declare", k)
		}
	}
}

// helixGlob is a Helix file-types glob as Helix matches it (helix-core's
// FileType deserializer and globset's defaults): "*/" is put in front of a
// glob that does not start with "/" or "*/", the glob is matched against
// the file's absolute path, and "*" crosses "/".
func helixGlob(t *testing.T, glob string) *regexp.Regexp {
	t.Helper()
	if !strings.HasPrefix(glob, "/") && !strings.HasPrefix(glob, "*/") {
		glob = "*/" + glob
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case strings.HasPrefix(glob[i:], "/**/"):
			re.WriteString("(?:/|/.*/)")
			i += 3
		case strings.HasPrefix(glob[i:], "**"):
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString(".*")
		case c == '?':
			re.WriteString(".")
		case strings.ContainsRune("[]{},", rune(c)):
			t.Fatalf("helixGlob does not know %q in %s", c, glob)
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String())
}

func TestHelixLanguages(t *testing.T) {
	var cfg struct {
		LanguageServer map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"language-server"`
		Language []struct {
			Name            string   `toml:"name"`
			Scope           string   `toml:"scope"`
			Grammar         string   `toml:"grammar"`
			LanguageServers []string `toml:"language-servers"`
			FileTypes       []any    `toml:"file-types"`
		} `toml:"language"`
	}
	md, err := toml.DecodeFile(editors+"/helix/languages.toml", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if und := md.Undecoded(); len(und) > 2 { // indent, roots, language-id are Helix's, not checked here
		t.Logf("keys not checked: %v", und)
	}
	ls := cfg.LanguageServer["planctl"]
	if ls.Command != "planctl" || !slices.Equal(ls.Args, []string{"lsp"}) {
		t.Errorf("[language-server.planctl] = %+v, want planctl lsp", ls)
	}
	if len(cfg.Language) != 1 {
		t.Fatalf("%d [[language]] tables, want one (a plan language; json itself untouched)", len(cfg.Language))
	}
	lang := cfg.Language[0]
	if lang.Name == "json" || lang.Scope == "source.json" || lang.Grammar != "json" || !slices.Contains(lang.LanguageServers, "planctl") {
		t.Errorf("language %+v", lang)
	}
	var globs []*regexp.Regexp
	for _, ft := range lang.FileTypes {
		m, ok := ft.(map[string]any)
		g, _ := m["glob"].(string)
		if !ok || g == "" {
			t.Fatalf("file type %v: only globs, so that no extension (json) takes every JSON file", ft)
		}
		globs = append(globs, helixGlob(t, g))
	}
	match := func(p string) bool {
		return slices.ContainsFunc(globs, func(re *regexp.Regexp) bool { return re.MatchString(p) })
	}
	for _, p := range planPaths {
		if !match(p) {
			t.Errorf("%s is a plan, and no glob matches it", p)
		}
	}
	for _, p := range notPlanPaths {
		if match(p) {
			t.Errorf("%s is not a plan, and a glob matches it", p)
		}
	}
}

// actionlint runs rhysd/actionlint on a workflow file and returns its
// findings (empty when it accepts the file), which it writes on stdout:
// stderr holds the go command's own lines ("go: downloading ..." on a
// machine whose module cache does not hold actionlint yet), added to the
// output only when the command fails.
func actionlint(t *testing.T, file string) (string, error) {
	t.Helper()
	cmd := clitest.Command("go", "run", "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12", "-no-color", "-oneline", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out) + stderr.String(), err
	}
	return string(out), nil
}

func TestGitHubWorkflow(t *testing.T) {
	t.Parallel()
	wf := editors + "/github/planctl.yml"
	if out, err := actionlint(t, wf); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("actionlint %s: %v\n%s", wf, err, out)
	}
	// The check can fail: the fragment docs/validate.md used to show is refused.
	frag := filepath.Join(t.TempDir(), "fragment.yml")
	os.WriteFile(frag, []byte("permissions: {contents: read, security-events: write}\nsteps:\n  - uses: actions/checkout@v4\n"), 0o644)
	if out, err := actionlint(t, frag); err == nil || !strings.Contains(out, `"on" section is missing`) {
		t.Errorf("actionlint accepted the old fragment: %v\n%s", err, out)
	}

	// The workflow's validate step, run in a repository laid out as it expects.
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
				Uses string `yaml:"uses"`
				With map[string]string
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, wf)), &w); err != nil {
		t.Fatal(err)
	}
	var run, sarif string
	for _, s := range w.Jobs["validate"].Steps {
		if strings.HasPrefix(s.Run, "planctl validate") {
			run = s.Run
		}
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			sarif = s.With["sarif_file"]
		}
	}
	cmdline, out, ok := strings.Cut(run, " > ")
	if !ok || sarif == "" || strings.TrimSpace(out) != sarif {
		t.Fatalf("the validate step %q does not write the file the upload reads (%q)", run, sarif)
	}
	var args []string
	for _, a := range strings.Fields(strings.TrimPrefix(cmdline, "planctl ")) {
		args = append(args, strings.Trim(a, `'"`))
	}
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "plans", "nightly"), 0o755)
	os.WriteFile(filepath.Join(repo, "plans", "nightly", "backup.json"), []byte(readFile(t, root+"/samples/backup.json")), 0o644)
	os.WriteFile(filepath.Join(repo, "plans", "broken.json"), []byte(readFile(t, root+"/samples/invalid-steps.json")), 0o644)
	code, stdout, stderr := planctl(t, repo, args...)
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil || code != 1 || len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
		t.Fatalf("planctl %v: exit %d (want 1: broken.json has errors), %v\n%s\n%s", args, code, err, stdout, stderr)
	}
	if uri := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "plans/broken.json" {
		t.Errorf("the finding is at %q, want plans/broken.json (relative to the repository)", uri)
	}
}

func TestPreCommitHooks(t *testing.T) {
	type hook struct {
		ID                     string   `yaml:"id"`
		Name                   string   `yaml:"name"`
		Entry                  string   `yaml:"entry"`
		Language               string   `yaml:"language"`
		Files                  string   `yaml:"files"`
		Types                  []string `yaml:"types"`
		AdditionalDependencies []string `yaml:"additional_dependencies"`
	}
	var meta []hook
	if err := yaml.Unmarshal([]byte(readFile(t, editors+"/pre-commit/.pre-commit-hooks.yaml")), &meta); err != nil {
		t.Fatal(err)
	}
	var local struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Hooks []hook `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, editors+"/pre-commit/pre-commit-config.yaml")), &local); err != nil {
		t.Fatal(err)
	}
	if len(meta) != 1 || len(local.Repos) != 1 || local.Repos[0].Repo != "local" || len(local.Repos[0].Hooks) != 1 {
		t.Fatalf("hooks: %+v, config: %+v", meta, local)
	}
	lh := local.Repos[0].Hooks[0]
	if !slices.Equal(lh.AdditionalDependencies, []string{"github.com/planctl/planctl/cmd/planctl@latest"}) {
		t.Errorf("the local hook installs %v", lh.AdditionalDependencies)
	}
	for _, h := range []hook{meta[0], lh} {
		if h.ID != "planctl-validate" || h.Entry != "planctl validate" || h.Language != "golang" || !slices.Equal(h.Types, []string{"json"}) {
			t.Errorf("hook %+v", h)
		}
		// pre-commit matches files with Python's re.search on the path
		// relative to the repository; this pattern means the same in Go.
		files := regexp.MustCompile(h.Files)
		for _, p := range planPaths {
			rel := strings.TrimPrefix(p, "/home/me/proj/")
			if !files.MatchString(rel) {
				t.Errorf("files %q does not match the plan %s", h.Files, rel)
			}
		}
		for _, p := range notPlanPaths {
			rel := strings.TrimPrefix(p, "/home/me/proj/")
			if files.MatchString(rel) {
				t.Errorf("files %q matches %s, which is not a plan", h.Files, rel)
			}
		}
	}
	// The entry, as pre-commit runs it: the staged plans' names appended.
	args := append(strings.Fields(meta[0].Entry)[1:], "samples/backup.json", "samples/invalid-steps.json")
	if code, _, _ := planctl(t, root, args...); code != 1 {
		t.Errorf("planctl %v: exit %d, want 1 (a plan with errors stops the commit)", args, code)
	}
	if code, out, errs := planctl(t, root, args[:2]...); code != 0 {
		t.Errorf("planctl %v: exit %d, want 0\n%s%s", args[:2], code, out, errs)
	}
}

// fencedBlocks is every fenced code block of a Markdown page, as written.
func fencedBlocks(page string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(page, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, cur = true, nil
		case in && line == "```":
			in = false
			out = append(out, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// The docs show each pasted configuration exactly as the file under
// editors/ holds it, so what a reader copies is what these tests checked.
func TestDocsShowEditorFiles(t *testing.T) {
	for _, c := range []struct{ page, file string }{
		{"docs/editors.md", "editors/nvim/planctl-lsp.lua"},
		{"docs/editors.md", "editors/helix/languages.toml"},
		{"docs/debug.md", "editors/nvim/planctl-dap.lua"},
		{"docs/validate.md", "editors/github/planctl.yml"},
		{"docs/validate.md", "editors/pre-commit/pre-commit-config.yaml"},
	} {
		want := strings.TrimRight(readFile(t, root+"/"+c.file), "\n")
		page := readFile(t, root+"/"+c.page)
		if !slices.Contains(fencedBlocks(page), want) {
			t.Errorf("%s has no code block that is %s as it is: copy the file into it", c.page, c.file)
		}
		if !strings.Contains(page, c.file) {
			t.Errorf("%s does not name %s", c.page, c.file)
		}
	}
	ed := readFile(t, root+"/docs/editors.md")
	for _, want := range []string{"code --install-extension planctl-", "editors/vscode", "editors/pre-commit/.pre-commit-hooks.yaml"} {
		if !strings.Contains(ed+readFile(t, root+"/docs/validate.md"), want) {
			t.Errorf("docs/editors.md or docs/validate.md does not say %q", want)
		}
	}
}

// The hook metadata, read by pre-commit itself: a hook repository made of
// this repository with editors/pre-commit/.pre-commit-hooks.yaml at its top
// (where pre-commit looks), tried on a project with plans and a
// package.json. pre-commit builds planctl from it (language: golang) and
// runs the hook on the plans only.
//
// It is long: pre-commit builds planctl from a fresh copy in a GOPATH of
// its own. What it adds to TestPreCommitHooks (the hook's fields, its files
// pattern and its entry's exit codes) is that install path, so it runs with
// the long tests.
func TestPreCommitTryRepo(t *testing.T) {
	clitest.Long(t, "pre-commit builds planctl from a copy of the repository")
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pre-commit is missing: .ci/install.sh installs Debian's pre-commit")
		}
		t.Skip("pre-commit is missing: run bash .ci/install.sh")
	}
	// Each repository is named outright (GIT_DIR, GIT_WORK_TREE): git must
	// never find this repository from a temporary folder and commit to it.
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := clitest.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_DIR="+filepath.Join(dir, ".git"), "GIT_WORK_TREE="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The hook repository: this one's files (not its git history, node
	// packages or build output), which is what pre-commit builds.
	hooks := t.TempDir()
	src := absPath(t, root)
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" { // a folder, or in a git worktree a file naming one
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "out") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(filepath.Join(hooks, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(hooks, ".pre-commit-hooks.yaml"), readFile(t, editors+"/pre-commit/.pre-commit-hooks.yaml"))
	git(hooks, "init", "-q")
	git(hooks, "add", "-A")
	git(hooks, "commit", "-q", "-m", "hooks")

	project := t.TempDir()
	git(project, "init", "-q")
	write(filepath.Join(project, "plans", "broken.json"), `{"steps": [{"id": "a", "tool": "no_such_tool", "args": {}}]}`)
	write(filepath.Join(project, "plans", "nightly", "backup.json"), readFile(t, root+"/samples/backup.json"))
	write(filepath.Join(project, "package.json"), `{"name": "web"}`)
	git(project, "add", "-A")

	gomodcache, err := clitest.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	try := func() (string, error) {
		cmd := clitest.Command(preCommit, "try-repo", hooks, "planctl-validate", "--all-files", "--color", "never")
		cmd.Dir = project
		// Its own cache, and the modules this machine already has (pre-commit
		// gives go a GOPATH of its own, which would download them again).
		cmd.Env = append(os.Environ(), "PRE_COMMIT_HOME="+home, "GOMODCACHE="+strings.TrimSpace(string(gomodcache)))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := try()
	if err == nil || !strings.Contains(out, "plans/broken.json") || !strings.Contains(out, "UNKNOWN_TOOL") {
		t.Fatalf("pre-commit passed or did not report plans/broken.json: %v\n%s", err, out)
	}
	t.Logf("pre-commit:\n%s", out)
	if strings.Contains(out, "package.json") {
		t.Errorf("the hook ran on package.json:\n%s", out)
	}
	write(filepath.Join(project, "plans", "broken.json"), readFile(t, root+"/samples/backup.json"))
	git(project, "add", "-A")
	if out, err := try(); err != nil || !strings.Contains(out, "Passed") {
		t.Errorf("pre-commit on fixed plans: %v\n%s", err, out)
	}
}

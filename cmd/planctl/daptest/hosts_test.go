package daptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

const debugDoc = "../../../docs/debug.md"

// snippet is the fenced block that follows the marker
// "<!-- dap snippet: NAME -->" in docs/debug.md: the test launches what
// the page shows, so the two cannot drift.
func snippet(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile(debugDoc)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- dap snippet: " + regexp.QuoteMeta(name) + " -->\n```[a-z]*\n(.*?)\n```")
	m := re.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/debug.md has no block after <!-- dap snippet: %s -->", name)
	}
	return string(m[1])
}

// hostLaunch is one configuration as a host sends it: the launch (or
// attach) arguments, the initialize arguments that host sends first, and
// the arguments of its restart request.
type hostLaunch struct {
	Host       string         `json:"host"`
	Initialize map[string]any `json:"initialize"`
	Config     map[string]any `json:"config"`
	Restart    map[string]any `json:"restart"`
}

// expandVSCode resolves ${file} and ${workspaceFolder} in every string,
// keys and values, as VS Code's configuration resolver does before a
// launch.
func expandVSCode(v any, file, folder string) any {
	r := strings.NewReplacer("${file}", file, "${workspaceFolder}", folder)
	switch x := v.(type) {
	case string:
		return r.Replace(x)
	case []any:
		for i := range x {
			x[i] = expandVSCode(x[i], file, folder)
		}
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[r.Replace(k)] = expandVSCode(e, file, folder)
		}
		return out
	}
	return v
}

// vscodeLaunches are the launch.json snippet's configurations as VS Code
// sends them. The launch.json entry is resolved and, since it comes from
// a folder's launch.json, gets "__configurationTarget": 6
// (ConfigurationTarget.WORKSPACE_FOLDER, added by the folder Launch's
// getConfiguration in debugConfigurationManager.ts); DebugSession's
// launchOrAttach (debugSession.ts) then adds "__sessionId". A restart
// sends {arguments: the entry resolved anew} (DebugSession.restart, with
// the configuration debugService re-read from launch.json), which has no
// __sessionId. The initialize arguments are those of
// RawDebugSession.initialize for the client "vscode".
func vscodeLaunches(t *testing.T, file, folder string) []hostLaunch {
	var launch struct {
		Configurations []map[string]any `json:"configurations"`
	}
	if err := json.Unmarshal([]byte(snippet(t, "vscode")), &launch); err != nil {
		t.Fatalf("the launch.json in docs/debug.md: %v", err)
	}
	if len(launch.Configurations) == 0 {
		t.Fatal("the launch.json in docs/debug.md has no configurations")
	}
	init := map[string]any{"clientID": "vscode", "clientName": "Visual Studio Code", "adapterID": "planctl",
		"pathFormat": "path", "linesStartAt1": true, "columnsStartAt1": true, "supportsVariableType": true,
		"supportsVariablePaging": true, "supportsRunInTerminalRequest": true, "locale": "en",
		"supportsProgressReporting": true, "supportsInvalidatedEvent": true, "supportsMemoryReferences": true,
		"supportsArgsCanBeInterpretedByShell": true, "supportsMemoryEvent": true, "supportsStartDebuggingRequest": true}
	var out []hostLaunch
	for _, c := range launch.Configurations {
		if c["name"] == nil {
			t.Errorf("a configuration in docs/debug.md has no \"name\": VS Code refuses it: %v", c)
		}
		cfg := expandVSCode(c, file, folder).(map[string]any)
		cfg["__configurationTarget"] = 6
		again := expandVSCode(c, file, folder).(map[string]any)
		again["__configurationTarget"] = 6
		cfg["__sessionId"] = "8c4fd54f-50ae-47aa-a1e9-d102a902686b"
		out = append(out, hostLaunch{Host: "vscode", Initialize: init, Config: cfg, Restart: map[string]any{"arguments": again}})
	}
	return out
}

// nvimHarness runs a documented nvim-dap snippet under Neovim against a
// stand-in for require("dap"), and writes each configuration as nvim-dap
// sends it: the table as written (Session:initialize in lua/dap/session.lua
// sends `config` itself as the launch or attach arguments), with the
// variables expanded as nvim-dap's on_config listener
// "dap.expand_variable" does (lua/dap.lua: ${file} is expand("%:p"),
// ${workspaceFolder} getcwd()). dap.restart() sends {arguments = the same
// configuration} (lua/dap.lua, M.restart).
const nvimHarness = `
local dap = { adapters = {}, configurations = {}, listeners = { before = {}, after = {}, on_config = {} } }
package.loaded.dap = dap
dofile(os.getenv("PLANCTL_SNIPPET"))
local vars = {
  ["${file}"] = vim.fn.expand("%:p"),
  ["${fileDirname}"] = vim.fn.expand("%:p:h"),
  ["${workspaceFolder}"] = vim.fn.getcwd(),
}
local function expand(v)
  if type(v) == "table" then
    local r = {}
    for k, x in pairs(v) do r[expand(k)] = expand(x) end
    return r
  end
  if type(v) ~= "string" then return v end
  for k, val in pairs(vars) do
    v = v:gsub(vim.pesc(k), (val:gsub("%%", "%%%%")))
  end
  return v
end
local res = {}
for ft, list in pairs(dap.configurations) do
  for _, c in ipairs(list) do
    table.insert(res, { filetype = ft, adapter = dap.adapters[c.type], config = expand(c) })
  end
end
vim.fn.writefile({ vim.fn.json_encode(res) }, os.getenv("PLANCTL_OUT"))
`

// nvimLaunches are the nvim-dap snippet's configurations as nvim-dap
// sends them, the snippet run by Neovim itself; the initialize arguments
// are those of Session:initialize.
func nvimLaunches(t *testing.T, file, folder string) []hostLaunch {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim is missing: .ci/install.sh installs Debian's neovim")
		}
		t.Skip("nvim is missing: run bash .ci/install.sh")
	}
	dir := t.TempDir()
	lua, harness, out := filepath.Join(dir, "snippet.lua"), filepath.Join(dir, "harness.lua"), filepath.Join(dir, "out.json")
	os.WriteFile(lua, []byte(snippet(t, "nvim-dap")), 0o644)
	os.WriteFile(harness, []byte(nvimHarness), 0o644)
	cmd := clitest.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", file, "-c", "luafile "+harness, "-c", "qa!")
	cmd.Dir = folder
	cmd.Env = append(os.Environ(), "PLANCTL_SNIPPET="+lua, "PLANCTL_OUT="+out)
	msg, err := cmd.CombinedOutput()
	data, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		t.Fatalf("nvim running the nvim-dap snippet of docs/debug.md: %v %v\n%s", err, rerr, msg)
	}
	var got []struct {
		Filetype string         `json:"filetype"`
		Adapter  map[string]any `json:"adapter"`
		Config   map[string]any `json:"config"`
	}
	if err := json.Unmarshal(data, &got); err != nil || len(got) == 0 {
		t.Fatalf("the nvim-dap snippet gave no configuration (%v): %s", err, data)
	}
	init := map[string]any{"clientID": "neovim", "clientName": "neovim", "adapterID": "nvim-dap",
		"pathFormat": "path", "linesStartAt1": true, "columnsStartAt1": true, "supportsRunInTerminalRequest": true,
		"supportsVariableType": true, "supportsProgressReporting": true, "supportsStartDebuggingRequest": true, "locale": "en_US.UTF-8"}
	var hl []hostLaunch
	for _, g := range got {
		if g.Adapter == nil || g.Adapter["command"] != "planctl" || !strings.Contains(string(mustJSON(g.Adapter["args"])), `"dap"`) {
			t.Errorf("the configuration %v's adapter does not start planctl dap: %v", g.Config["name"], g.Adapter)
		}
		if g.Config["name"] == nil {
			t.Errorf("an nvim-dap configuration has no name: %v", g.Config)
		}
		hl = append(hl, hostLaunch{Host: "nvim-dap", Initialize: init, Config: g.Config, Restart: map[string]any{"arguments": g.Config}})
	}
	return hl
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestHostConfigurations launches `planctl dap` with each configuration
// docs/debug.md shows, exactly as VS Code and nvim-dap send it (name,
// type, request and the host's own keys included), through Microsoft's
// DebugClient (testdata/node/hosts.mjs): the launch succeeds, the run
// stops on entry in the plan the configuration names, with the catalog
// relative to cwd; then the plan is edited on disk and a restart with
// the host's restart arguments runs the new plan to its end.
func TestHostConfigurations(t *testing.T) {
	node := needNode(t)
	ws := t.TempDir()
	plan := filepath.Join(ws, "plan.json")
	for src, dst := range map[string]string{"testdata/plan.json": plan, "../../../mockserver/demo.json": filepath.Join(ws, "tools.json")} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, data, 0o644)
	}
	launches := vscodeLaunches(t, plan, ws)
	t.Run("nvim-dap", func(t *testing.T) { launches = append(launches, nvimLaunches(t, plan, ws)...) })
	hosts := filepath.Join(t.TempDir(), "hosts.json")
	os.WriteFile(hosts, mustJSON(launches), 0o644)
	cmd := clitest.Command(node, "hosts.mjs", binary, plan, hosts)
	cmd.Dir = nodeDir
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || !strings.HasSuffix(text, "PASS\n") || strings.Contains(text, "FAIL ") {
		t.Fatalf("hosts.mjs: %v\n%s", err, text)
	}
	for _, l := range launches {
		if !strings.Contains(text, "ok "+l.Host+" ") {
			t.Errorf("no check ran for %s:\n%s", l.Host, text)
		}
	}
	t.Logf("%d configurations:\n%s", len(launches), text)
}

package editortest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// openWorkspace opens ws with `planctl lsp` through the node LSP client,
// with the user's configuration folder at xdg, and returns the messages
// the server showed the user.
func openWorkspace(t *testing.T, ws, xdg, initOptions string, settings ...string) []string {
	t.Helper()
	node := needNodePackage(t, "vscode-languageserver-protocol")
	cmd := clitest.Command(node, append([]string{"trust.mjs", binary, ws, initOptions}, settings...)...)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "initialized\n") || !strings.HasSuffix(string(out), "done 0\n") {
		t.Fatalf("trust.mjs: %v\n%s", err, out)
	}
	var msgs []string
	for _, line := range strings.Split(string(out), "\n") {
		var m struct{ Message struct{ Message string } }
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &m) == nil {
			msgs = append(msgs, m.Message.Message)
		}
	}
	return msgs
}

// TestWorkspaceRunsNothingUntilTrusted: a cloned folder's .planctl.json
// naming a command (here one that leaves a marker file, then serves the
// demo catalog) is not run when the folder is opened; the user is told
// why, naming the folder and the trust file. Trusted in the user's trust
// file, in initializationOptions, or later through the editor's settings,
// it runs. Before, opening the folder ran the command.
func TestWorkspaceRunsNothingUntilTrusted(t *testing.T) {
	t.Parallel()
	ws, xdg := t.TempDir(), t.TempDir()
	marker := filepath.Join(ws, "marker")
	server := "sh -c 'id > marker; exec " + binary + " mock'"
	cfg, _ := json.Marshal(map[string]string{"server": server})
	if err := os.WriteFile(filepath.Join(ws, ".planctl.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ran := func() bool {
		_, err := os.Stat(marker)
		defer os.Remove(marker)
		return err == nil
	}
	trustFile := filepath.Join(xdg, "planctl", "trusted.json")

	msgs := openWorkspace(t, ws, xdg, "null")
	if ran() {
		t.Fatal("opening an untrusted workspace ran its .planctl.json's server")
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], ws+" is not trusted") || !strings.Contains(msgs[0], trustFile) ||
		!strings.Contains(msgs[0], "trustWorkspace") || !strings.Contains(msgs[0], "embedded demo catalog") {
		t.Errorf("the user is not told why the server did not start, and how to trust the folder: %q", msgs)
	}

	// The workspace cannot trust itself.
	self, _ := json.Marshal(map[string]any{"server": server, "trustWorkspace": true})
	os.WriteFile(filepath.Join(ws, ".planctl.json"), self, 0o644)
	msgs = openWorkspace(t, ws, xdg, "null")
	if ran() || len(msgs) != 1 || !strings.Contains(msgs[0], `"trustWorkspace" is the user's to set`) {
		t.Errorf("a .planctl.json trusting itself: ran %v, messages %q", ran(), msgs)
	}
	os.WriteFile(filepath.Join(ws, ".planctl.json"), cfg, 0o644)

	// A trust file listing another folder trusts nothing here.
	os.MkdirAll(filepath.Dir(trustFile), 0o700)
	os.WriteFile(trustFile, []byte(`{"folders": ["`+filepath.Join(ws, "sub")+`"]}`), 0o600)
	if openWorkspace(t, ws, xdg, "null"); ran() {
		t.Error("a trust file listing a folder inside the workspace trusted the workspace")
	}

	// The user's editor settings, at once or later.
	if msgs := openWorkspace(t, ws, xdg, `{"trustWorkspace": true}`); !ran() || len(msgs) != 0 {
		t.Errorf("trustWorkspace in initializationOptions: ran %v, messages %q", ran(), msgs)
	}
	if msgs := openWorkspace(t, ws, xdg, "null", `{"planctl": {"trustWorkspace": true}}`); !ran() || len(msgs) != 1 {
		t.Errorf("trustWorkspace through didChangeConfiguration: the server did not start (messages %q)", msgs)
	}

	// The user's trust file, listing the folder above the workspace.
	os.WriteFile(trustFile, []byte(`{"folders": ["`+filepath.Dir(ws)+`"]}`), 0o600)
	if msgs := openWorkspace(t, ws, xdg, "null"); !ran() || len(msgs) != 0 {
		t.Errorf("a folder the trust file lists: ran %v, messages %q", ran(), msgs)
	}
}

// TestWorkspaceSettingsNotAFile: a .planctl.json that is a symlink to
// /dev/zero (read without end before) or a FIFO (initialize hung) is
// refused at once, and the server answers with the demo catalog.
func TestWorkspaceSettingsNotAFile(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"zero", "fifo"} {
		ws := t.TempDir()
		file := filepath.Join(ws, ".planctl.json")
		if kind == "zero" {
			os.Symlink("/dev/zero", file)
		} else if err := syscall.Mkfifo(file, 0o600); err != nil {
			t.Fatal(err)
		}
		msgs := openWorkspace(t, ws, t.TempDir(), "null")
		if len(msgs) != 1 || !strings.Contains(msgs[0], "not a regular file") || !strings.Contains(msgs[0], "embedded demo catalog") {
			t.Errorf("%s: %q", kind, msgs)
		}
	}
}

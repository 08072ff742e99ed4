// Package editortest drives planctl with editor and CI tools nobody here
// wrote: Microsoft's SARIF validator with GitHub's rules on the SARIF of
// every sample, ajv on the JSON Schema of `planctl schema`, and an LSP
// client (vscode-languageserver-protocol) on `planctl lsp`. The node
// packages are installed by .ci/install.sh from testdata/node.
package editortest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var binary string

// TestMain builds the real binary once.
func TestMain(m *testing.M) {
	clitest.Main(m, func(dir string) { binary = filepath.Join(dir, "planctl") }, "planctl=..")
}

// root is the repository, where samples/ lives.
const root = "../../.."

// nodeDir holds the node packages, installed by .ci/install.sh
// (npm ci --prefix cmd/planctl/editortest/testdata/node).
const nodeDir = "testdata/node"

// needNodePackage is node, with pkg installed (see clitest.NeedNode).
func needNodePackage(t *testing.T, pkg string) string {
	return clitest.NeedNode(t, nodeDir, pkg)
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runNode runs a script of testdata/node and returns its output.
func runNode(t *testing.T, pkg string, args ...string) string {
	t.Helper()
	cmd := clitest.Command(needNodePackage(t, pkg), args...)
	cmd.Dir = nodeDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// planctl runs the binary in dir and returns its exit code and output.
func planctl(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := clitest.Command(binary, args...)
	cmd.Dir = dir
	return clitest.Run(t, cmd)
}

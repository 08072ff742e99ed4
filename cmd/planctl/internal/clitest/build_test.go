package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Build links a package once per content of its sources: a second Build
// of the same sources gets the cached binary, an edit gets a new one.
func TestBuildCachesBySource(t *testing.T) {
	mod := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/hello\n\ngo 1.22\n")
	write("main.go", "package main\n\nfunc main() { println(\"one\") }\n")
	t.Setenv(CacheDirEnv, t.TempDir())
	t.Chdir(mod)

	run := func(dir string) string {
		t.Helper()
		out, err := Command(filepath.Join(dir, "hello")).CombinedOutput()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	same := func(a, b string) bool {
		t.Helper()
		fa, err := os.Stat(filepath.Join(a, "hello"))
		if err != nil {
			t.Fatal(err)
		}
		fb, err := os.Stat(filepath.Join(b, "hello"))
		if err != nil {
			t.Fatal(err)
		}
		return os.SameFile(fa, fb)
	}

	first := Build("hello=.")
	defer os.RemoveAll(first)
	second := Build("hello=.")
	defer os.RemoveAll(second)
	if !same(first, second) {
		t.Error("the second Build of unchanged sources linked again instead of using the cached binary")
	}
	if got := run(second); got != "one" {
		t.Errorf("the cached binary printed %q, want one", got)
	}

	write("main.go", "package main\n\nfunc main() { println(\"two\") }\n")
	third := Build("hello=.")
	defer os.RemoveAll(third)
	if same(first, third) {
		t.Error("Build after an edit returned the binary of the old sources")
	}
	if got := run(third); got != "two" {
		t.Errorf("after the edit the binary printed %q, want two", got)
	}
	if got := run(first); got != "one" {
		t.Errorf("an earlier Build's binary changed under it: %q, want one", got)
	}
}

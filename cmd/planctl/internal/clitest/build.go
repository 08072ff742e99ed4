package clitest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// CacheDirEnv names the folder where Build keeps the binaries it built,
// one per source key; the default is planctl-test-bin in os.TempDir().
const CacheDirEnv = "PLANCTL_TEST_BIN_CACHE"

// cacheAge is how long an unused entry stays in the cache: long enough for
// a day of test runs, short enough that edits do not pile binaries up.
const cacheAge = 24 * time.Hour

// Build compiles each "name=package" (the package path relative to the
// calling test's directory) and returns a new temporary directory holding
// them under those names; the caller removes it. It panics on failure: it
// is meant for TestMain, before any test can fail.
//
// The binaries come from a cache keyed on everything the build reads (the
// module's source files, the versions of the modules it uses, the Go
// version and the build's environment), so the test packages of one
// `go test ./...` link planctl once between them instead of once each.
func Build(specs ...string) string {
	dir, err := os.MkdirTemp("", "planctl-test")
	if err != nil {
		panic(err)
	}
	for _, spec := range specs {
		name, pkg, ok := strings.Cut(spec, "=")
		if !ok {
			os.RemoveAll(dir)
			panic("clitest.Build: want name=package, got " + spec)
		}
		bin, err := cachedBuild(name, pkg)
		if err != nil {
			os.RemoveAll(dir)
			panic(err.Error())
		}
		// A link of its own: the entry may be pruned while this test runs.
		if err := os.Link(bin, filepath.Join(dir, name)); err != nil {
			if err := copyFile(bin, filepath.Join(dir, name)); err != nil {
				os.RemoveAll(dir)
				panic(err.Error())
			}
		}
	}
	return dir
}

// cachedBuild returns the path of pkg built as name, from the cache when a
// build of the same sources is there, building it otherwise.
func cachedBuild(name, pkg string) (string, error) {
	key, err := sourceKey(name, pkg)
	if err != nil {
		return "", err
	}
	cache := os.Getenv(CacheDirEnv)
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "planctl-test-bin")
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", fmt.Errorf("the test binary cache: %w", err)
	}
	entry := filepath.Join(cache, key)
	bin := filepath.Join(entry, name)
	if _, err := os.Stat(bin); err == nil {
		now := time.Now()
		os.Chtimes(entry, now, now)
		return bin, nil
	}
	// The packages of one `go test ./...` start together: one links while
	// the others wait for its binary.
	unlock, err := lockFile(entry + ".lock")
	if err != nil {
		return "", fmt.Errorf("locking the test binary cache: %w", err)
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp, err := os.MkdirTemp(cache, "build-")
	if err != nil {
		return "", fmt.Errorf("the test binary cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if out, err := Command("go", "build", "-o", filepath.Join(tmp, name), pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	// Renamed whole, so no one ever runs a binary still being written.
	if err := os.Rename(tmp, entry); err != nil {
		// Another build of the same key got there first (no lock, or its
		// lock file pruned): its binary is as good.
		if _, statErr := os.Stat(bin); statErr == nil {
			return bin, nil
		}
		return "", fmt.Errorf("the test binary cache: %w", err)
	}
	prune(cache)
	return bin, nil
}

// listed is what sourceKey reads of `go list -json` for each package.
type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct {
		Path, Version, GoMod string
		Replace              *struct{ Path, Version string }
	}
	GoFiles, CgoFiles, EmbedFiles, SFiles, CFiles, HFiles, SysoFiles []string
}

// sourceKey hashes what `go build pkg` reads: the Go version and the
// environment that changes a build, then, for each package pkg depends
// on, its files' contents when they are the module's own (or a local
// replacement) and its module's version when it comes from the module
// cache, whose contents that version fixes.
func sourceKey(name, pkg string) (string, error) {
	cmd := Command("go", "list", "-deps",
		"-json=ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,EmbedFiles,SFiles,CFiles,HFiles,SysoFiles", pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %w\n%s", pkg, err, stderr.Bytes())
	}
	h := sha256.New()
	fmt.Fprintf(h, "name %s\ngo %s %s/%s\n", name, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, v := range []string{"GOFLAGS", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "CGO_ENABLED", "GOEXPERIMENT", "GOTOOLCHAIN", "CC", "CGO_CFLAGS", "CGO_LDFLAGS"} {
		fmt.Fprintf(h, "env %s=%s\n", v, os.Getenv(v))
	}
	goMods := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", fmt.Errorf("go list %s: %w", pkg, err)
		}
		if p.Standard {
			continue
		}
		fmt.Fprintf(h, "package %s\n", p.ImportPath)
		if m := p.Module; m != nil && m.Version != "" && (m.Replace == nil || m.Replace.Version != "") {
			fmt.Fprintf(h, "module %s@%s\n", m.Path, m.Version)
			if m.Replace != nil {
				fmt.Fprintf(h, "replaced %s@%s\n", m.Replace.Path, m.Replace.Version)
			}
			continue
		}
		if p.Module != nil && p.Module.GoMod != "" && !goMods[p.Module.GoMod] {
			goMods[p.Module.GoMod] = true
			if err := hashFile(h, p.Module.GoMod); err != nil {
				return "", err
			}
			if err := hashFile(h, strings.TrimSuffix(p.Module.GoMod, ".mod")+".sum"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		}
		for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.EmbedFiles, p.SFiles, p.CFiles, p.HFiles, p.SysoFiles} {
			for _, f := range files {
				if err := hashFile(h, filepath.Join(p.Dir, f)); err != nil {
					return "", err
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// hashFile writes path and its contents to h.
func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("hashing the sources of a test binary: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\n", path)
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("hashing the sources of a test binary: %w", err)
	}
	_, err = io.WriteString(h, "\n")
	return err
}

// prune removes the entries (and their lock files) unused for cacheAge.
func prune(cache string) {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < cacheAge {
			continue
		}
		os.RemoveAll(filepath.Join(cache, e.Name()))
	}
}

// copyFile copies an executable, for a cache on another file system.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copying a test binary: %w", err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		return fmt.Errorf("copying a test binary: %w", err)
	}
	return nil
}

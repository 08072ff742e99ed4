// Package regfile opens the files planctl reads by name (plans, traces,
// catalogs, server configurations, workspace settings) so that no name can
// make it hang or read without end: only a regular file is opened, never a
// named pipe (opening one with no writer blocks), a device (/dev/zero never
// ends, /dev/stdin waits on a terminal), a folder, or a file of /proc or
// /sys (views of the system, such as another process's environment), and
// it is read up to a bound.
//
//	data, err := regfile.ReadFile(path, 64<<20)
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/planctl/planctl/plan"
)

// Open opens path for reading when it is a regular file; a symbolic link
// is followed, and what it names must be one. The check is made on the
// opened file, so the file cannot be swapped between the check and the
// read.
func Open(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := check(path, fi.Mode()); err != nil {
		f.Close()
		return nil, err
	}
	if err := checkFS(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file at path, refusing one larger than max
// bytes with an error that says so.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAtMost(f, max)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%s is %w", path, err)
	}
	return data, err
}

// ReadAtMost reads r to its end, but stops one byte past max and refuses
// what it read with an error that names the bound and wraps ErrTooLarge:
// a wrong input (a device, an endless pipe) fails instead of filling
// memory. Callers that say more (which file, what it should be) test the
// error with errors.Is.
func ReadAtMost(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("larger than %s: %w", plan.ByteSize(max), ErrTooLarge)
	}
	return data, nil
}

// ErrTooLarge is wrapped by ReadFile's error for a file past its bound.
var ErrTooLarge = fmt.Errorf("too large to read (is it the file you meant?)")

// ErrNotRegular is wrapped by the error for a name that is not a regular
// file.
var ErrNotRegular = fmt.Errorf("not a regular file: planctl reads plans, traces, catalogs and settings only from files (save the data to a file and give its path)")

func check(path string, m fs.FileMode) error {
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		what = "a device"
	default:
		what = "not a file"
	}
	return fmt.Errorf("%s is %s, %w", path, what, ErrNotRegular)
}

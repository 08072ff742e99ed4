//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path without waiting: a named pipe with no writer
// opens at once (and is then refused) instead of blocking in open(2).
// O_NONBLOCK changes nothing for the regular files that are kept.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

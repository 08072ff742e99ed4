//go:build !unix

package regfile

import "os"

func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

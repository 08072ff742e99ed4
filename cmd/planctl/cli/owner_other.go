//go:build !unix

package cli

import "os"

const noFollow = 0

func ownedByMe(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

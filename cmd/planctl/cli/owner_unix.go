//go:build unix

package cli

import (
	"os"
	"syscall"
)

// noFollow makes opening the default server log refuse a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// ownedByMe reports whether f is a regular file of this user: the default
// server log sits in the shared temporary directory, where another user
// could have created it first.
func ownedByMe(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == uint32(os.Getuid())
}

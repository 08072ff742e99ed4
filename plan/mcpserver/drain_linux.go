package mcpserver

import (
	"os"

	"golang.org/x/sys/unix"
)

// unreadBytes is how much of what was written to out its reader has not
// read yet: bytes in a pipe (FIONREAD), the memory still charged for
// them on a Unix socket (SIOCOUTQ: Node gives a child socket pairs for
// its stdio); ok is false when out is neither.
func unreadBytes(out any) (n int, ok bool) {
	f, isFile := out.(*os.File)
	if !isFile {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	switch {
	case fi.Mode()&os.ModeNamedPipe != 0:
		n, err = unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ) // FIONREAD, which a pipe answers too
	case fi.Mode()&os.ModeSocket != 0:
		n, err = unix.IoctlGetInt(int(f.Fd()), unix.SIOCOUTQ)
	default:
		return 0, false
	}
	return n, err == nil
}

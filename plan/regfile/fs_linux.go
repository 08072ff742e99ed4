package regfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// checkFS refuses the files of /proc and /sys: they stat as regular files
// but are views of the system (a process's environment, the kernel's
// settings), which no plan or catalog is.
func checkFS(f *os.File, path string) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return nil // the check is a refusal of known views, not a requirement
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return fmt.Errorf("%s is in /proc or /sys, a view of the system, %w", path, ErrNotRegular)
	}
	return nil
}

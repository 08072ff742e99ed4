package cli

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// wipeEnvBlock zeroes the value of the variable name in the environment
// block the kernel gave the process (/proc/self/stat's env_start and
// env_end), through /proc/self/mem. /proc/<pid>/environ shows that block
// as it is now, and the Go runtime only copies it: a variable unset but
// not wiped stays readable there by the user's other processes (an
// upstream server planctl started among them). It does what it can and
// reports nothing: without /proc the block is not shown either.
func wipeEnvBlock(name string) {
	start, end, ok := envBlock()
	if !ok {
		return
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer mem.Close()
	block := make([]byte, end-start)
	n, err := mem.ReadAt(block, int64(start))
	if err != nil && n == 0 {
		return
	}
	block = block[:n]
	key := []byte(name + "=")
	for off := 0; off < len(block); {
		entry := block[off:]
		if i := bytes.IndexByte(entry, 0); i >= 0 {
			entry = entry[:i]
		}
		if bytes.HasPrefix(entry, key) && len(entry) > len(key) {
			mem.WriteAt(make([]byte, len(entry)-len(key)), int64(start)+int64(off+len(key)))
		}
		off += len(entry) + 1
	}
}

// envBlock is the environment block's address range, from fields 50 and
// 51 of /proc/self/stat (counted after the command name, which may hold
// spaces and parentheses and ends at the last ")").
func envBlock() (start, end uint64, ok bool) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // field 3 onwards
	if len(f) < 51-2 {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(f[50-3], 10, 64)
	b, err2 := strconv.ParseUint(f[51-3], 10, 64)
	if err1 != nil || err2 != nil || a == 0 || b <= a || b-a > 64<<20 {
		return 0, 0, false
	}
	return a, b, true
}

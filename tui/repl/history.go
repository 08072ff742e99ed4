package repl

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// history is the lines typed at the prompt, oldest first, kept in a file
// of one line each (the format chzyer/readline, the REPL's editor before,
// kept too): read at the start, a line appended as it is entered.
type history struct {
	lines []string
	path  string // "" keeps them for the session only
	limit int
}

// loadHistory reads the last limit lines of path. A history that cannot
// be read or kept is no reason to refuse a session: it is then the
// session's only.
func loadHistory(path string, limit int) *history {
	h := &history{limit: limit}
	if path == "" || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return h
	}
	h.path = path
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" {
			h.lines = append(h.lines, l)
			n++
		}
		if len(h.lines) > 2*limit {
			h.lines = append(h.lines[:0], h.lines[len(h.lines)-limit:]...)
		}
	}
	if len(h.lines) > limit {
		h.lines = h.lines[len(h.lines)-limit:]
	}
	if n > limit {
		h.rewrite()
	}
	return h
}

// add keeps line, unless it repeats the last one.
func (h *history) add(line string) {
	if len(h.lines) > 0 && h.lines[len(h.lines)-1] == line {
		return
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > h.limit {
		h.lines = h.lines[len(h.lines)-h.limit:]
	}
	if h.path == "" {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.WriteString(line + "\n")
	f.Close()
}

// rewrite writes the lines kept over the file, so that it does not grow
// past the limit from one session to the next.
func (h *history) rewrite() {
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, []byte(strings.Join(h.lines, "\n")+"\n"), 0o600) != nil || os.Rename(tmp, h.path) != nil {
		os.Remove(tmp)
	}
}

// find is the newest entry at or before from that holds query, or -1.
func (h *history) find(query string, from int) int {
	for i := min(from, len(h.lines)-1); i >= 0; i-- {
		if strings.Contains(h.lines[i], query) {
			return i
		}
	}
	return -1
}

package cli

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// --http binds loopback unless ADDR names a host.
func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		flag, addr string
		explicit   bool
	}{
		{"8080", "127.0.0.1:8080", false},
		{":8080", "127.0.0.1:8080", false},
		{":0", "127.0.0.1:0", false},
		{"localhost:9", "localhost:9", true},
		{"0.0.0.0:8080", "0.0.0.0:8080", true},
		{"[::1]:8080", "[::1]:8080", true},
	} {
		addr, explicit, err := listenAddr(c.flag)
		if err != nil || addr != c.addr || explicit != c.explicit {
			t.Errorf("listenAddr(%q) = %q %v %v, want %q %v", c.flag, addr, explicit, err, c.addr, c.explicit)
		}
	}
	for _, bad := range []string{"host:port", ":99999", "a:b:c"} {
		if _, _, err := listenAddr(bad); err == nil {
			t.Errorf("listenAddr(%q) accepted", bad)
		}
	}
}

// --debug-addr binds loopback only.
func TestDebugAddrLoopbackOnly(t *testing.T) {
	var errb bytes.Buffer
	s := &streams{errOut: &errb}
	log := slog.New(slog.DiscardHandler)
	for _, bad := range []string{"0.0.0.0:0", "[::]:0", "example.com:0"} {
		if _, err := startDebugListener(bad, s, log); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("--debug-addr %s: %v", bad, err)
		}
	}
	for _, ok := range []string{"0", ":0", "127.0.0.1:0"} {
		stop, err := startDebugListener(ok, s, log)
		if err != nil {
			t.Errorf("--debug-addr %s: %v", ok, err)
			continue
		}
		stop()
	}
	if !strings.Contains(errb.String(), "http://127.0.0.1:") {
		t.Errorf("stderr: %q", errb.String())
	}
}

func TestFitConns(t *testing.T) {
	for _, c := range []struct {
		max   int
		set   bool
		limit int64
		want  int
		err   bool
	}{
		{1024, false, 0, 1024, false},          // limit unknown: as given
		{1024, false, 1 << 20, 1024, false},    // room to spare
		{1024, false, 1024, 1024 - 128, false}, // the default is lowered to fit
		{1024, true, 1024, 0, true},            // a value given is refused
		{1024, false, 100, 0, true},            // too few descriptors to serve
		{900, true, 1024, 0, true},
		{896, true, 1024, 896, false},
	} {
		got, err := fitConns(c.max, c.set, c.limit)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("fitConns(%d, %v, %d) = %d, %v", c.max, c.set, c.limit, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "ulimit -n") {
			t.Errorf("the error does not say how to fix it: %v", err)
		}
	}
}

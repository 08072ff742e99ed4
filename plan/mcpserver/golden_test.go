package mcpserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
)

// wireCase is one request of testdata/wire/cases.txt and the answer
// Concierge's own server gave it (record.py).
type wireCase struct {
	name, request, answer string
	wireOnly, stdioOnly   bool
	differs               string // why the answer is not compared, or ""
}

// recordedServerInfo is the serverInfo of the oracle's initialize answers:
// server.py's FastMCP name and the SDK's version. planctl names itself
// there (docs/concierge.md), so a case tagged [serverInfo] is compared with
// planctl's in its place.
const recordedServerInfo = `"serverInfo":{"name":"concierge-oracle","version":"1.29.0"}`

func readWireCases(t *testing.T) []wireCase {
	t.Helper()
	b, err := os.ReadFile("testdata/wire/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []wireCase
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			c := wireCase{name: strings.TrimPrefix(line, "## ")}
			c.wireOnly = strings.Contains(c.name, "[wire]")
			c.stdioOnly = strings.Contains(c.name, "[stdio]")
			if _, why, ok := strings.Cut(c.name, "[differs: "); ok {
				c.differs = strings.TrimSuffix(why, "]")
			}
			cases = append(cases, c)
		case strings.HasPrefix(line, "> "):
			cases[len(cases)-1].request = strings.TrimPrefix(line, "> ")
		case strings.HasPrefix(line, "< "):
			cases[len(cases)-1].answer = strings.TrimPrefix(line, "< ")
		}
	}
	for i, c := range cases {
		if strings.Contains(c.name, "[serverInfo") {
			if !strings.Contains(c.answer, recordedServerInfo) {
				t.Fatalf("%s: the recorded answer has no %s", c.name, recordedServerInfo)
			}
			cases[i].answer = strings.Replace(c.answer, recordedServerInfo, `"serverInfo":{"name":"planctl","version":"dev"}`, 1)
		}
	}
	if len(cases) < 20 {
		t.Fatalf("testdata/wire/cases.txt holds %d cases", len(cases))
	}
	return cases
}

// compared reports whether c's answer is compared in this mode.
func (c wireCase) compared(conciergeWire bool) bool {
	return c.differs == "" && c.answer != "" && (conciergeWire || !c.wireOnly)
}

// TestWireGoldensStdio: planctl serve over stdio writes, byte for byte,
// what Concierge's own server wrote to the same requests, under
// --concierge-wire and, where planctl's answer is not its own by design,
// in the default mode.
func TestWireGoldensStdio(t *testing.T) {
	cases := readWireCases(t)
	for _, wire := range []bool{false, true} {
		s := New(Options{Catalog: mockserver.Demo(), NoPreflight: true, ConciergeWire: wire})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
		out := bufio.NewReader(outR)
		compared := 0
		for _, c := range cases {
			if _, err := io.WriteString(inW, c.request+"\n"); err != nil {
				t.Fatal(err)
			}
			if c.answer == "" {
				continue // a notification
			}
			got, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: no answer: %v", c.name, err)
			}
			if !c.compared(wire) {
				continue
			}
			compared++
			if got = strings.TrimSuffix(got, "\n"); got != c.answer {
				t.Errorf("concierge-wire=%v, %s:\n got %s\nwant %s", wire, c.name, got, c.answer)
			}
		}
		if want := map[bool]int{false: 17, true: 33}[wire]; compared < want {
			t.Errorf("concierge-wire=%v: only %d answers compared", wire, compared)
		}
		inW.Close()
		go io.Copy(io.Discard, out)
		if err := <-done; err != nil && err != io.EOF && ctx.Err() == nil {
			t.Errorf("ServeStdio: %v", err)
		}
		cancel()
	}
}

// TestWireGoldensHTTP: the same answers in the JSON body of a stateless
// Streamable HTTP POST, from the direct path (direct.go) and from mcp-go's.
func TestWireGoldensHTTP(t *testing.T) {
	cases := readWireCases(t)
	for _, wire := range []bool{false, true} {
		tw := newTwin(t, Options{NoPreflight: true, ConciergeWire: wire}, false)
		for _, side := range []*twinSide{tw.direct, tw.viaMCP} {
			compared := 0
			for _, c := range cases {
				if c.stdioOnly || !c.compared(wire) {
					continue
				}
				compared++
				a := side.send(t, c.request, nil)
				if got := strings.TrimSuffix(a.body, "\n"); a.status != 200 || got != c.answer {
					t.Errorf("concierge-wire=%v, direct path %v, %s:\n got %d %s\nwant %s", wire, side.h.direct, c.name, a.status, got, c.answer)
				}
			}
			if compared < 10 {
				t.Errorf("concierge-wire=%v: only %d answers compared", wire, compared)
			}
			if side.h.direct && side.h.directServed.Load() < 8 {
				t.Errorf("concierge-wire=%v: the direct path answered %d requests", wire, side.h.directServed.Load())
			}
		}
	}
}

package jsontext

import (
	"bytes"
	"testing"
)

// skipStringBytewise is SkipString as a byte at a time: the reference the
// word-at-a-time scan must agree with.
func skipStringBytewise(b []byte, i int) int {
	i++
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return i
}

var skipStringCases = []string{
	`""`, `"a"`, `"value"`, `"step-000001"`, `"seven77"`, `"eight888"`, `"nine99999"`,
	`"a\"b"`, `"\\"`, `"\\\\"`, `"abcdefg\"hijklmnop\\"`, `"abcdefgh\\`, `"abcdefg\`,
	`"unterminated and longer than a word`, `"é☃𝄞 and more"`, `"\u0022"`,
	`"` + "\x00\x7f\x80\xff\xa2\xdc" + `"`, // bytes whose neighbours ('"'^x, '\\'^x) borrow
	`"#!]["`, `"""`, `"ab"cd"ef"`,
}

func TestSkipStringMatchesBytewise(t *testing.T) {
	for _, s := range skipStringCases {
		for pad := range 9 {
			b := []byte(s + `, "next": 1`[:pad])
			checkSkipString(t, b, 0)
		}
	}
}

func FuzzSkipString(f *testing.F) {
	for _, s := range skipStringCases {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i >= len(b) {
			return
		}
		checkSkipString(t, b, i)
	})
}

// checkSkipString checks SkipString and SkipStringEscaped of the string at
// b[i] against the bytewise scan: the same end, and an escape reported
// exactly when a backslash lies inside the string.
func checkSkipString(t *testing.T, b []byte, i int) {
	t.Helper()
	want := skipStringBytewise(b, i)
	if got := SkipString(b, i); got != want {
		t.Fatalf("SkipString(%q, %d) = %d, want %d", b, i, got, want)
	}
	end, escaped := SkipStringEscaped(b, i)
	if inner := b[i+1 : max(min(want, len(b)), i+1)]; end != want || escaped != bytes.ContainsRune(inner, '\\') {
		t.Fatalf("SkipStringEscaped(%q, %d) = %d, %v; want %d, %v", b, i, end, escaped, want, bytes.ContainsRune(inner, '\\'))
	}
}

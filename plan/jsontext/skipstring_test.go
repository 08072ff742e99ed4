package jsontext

import "testing"

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
			if got, want := SkipString(b, 0), skipStringBytewise(b, 0); got != want {
				t.Errorf("SkipString(%q, 0) = %d, want %d", b, got, want)
			}
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
		if got, want := SkipString(b, i), skipStringBytewise(b, i); got != want {
			t.Fatalf("SkipString(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}

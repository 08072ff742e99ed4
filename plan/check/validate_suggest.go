package check

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// Suggest returns the candidate closest to word, for "did you mean": the
// same word in another case or spelling of separators, else the one at the
// smallest edit distance (transpositions count one) within a third of the
// word's length, else a candidate that has the word as one of its
// '_'-separated parts. "" when nothing is close. It allocates nothing, so
// that a plan full of unknown names stays fast.
func Suggest(word string, candidates []string) string {
	if word == "" || len(candidates) == 0 {
		return ""
	}
	for _, c := range candidates {
		if c != word && foldEqual(c, word) {
			return c
		}
	}
	n := utf8.RuneCountInString(word)
	limit := max(1, n/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		m := utf8.RuneCountInString(c)
		if m-n >= bestD || n-m >= bestD {
			continue // the distance is at least the difference in length
		}
		if d := editDistanceWithin(word, c, bestD-1); d < bestD {
			best, bestD = c, d
			if d == 1 {
				break // nothing is closer but the folded spellings, tried above
			}
		}
	}
	if best != "" {
		return best
	}
	if len(word) >= 2 {
		for _, c := range candidates {
			if c != word && hasPart(c, word) {
				return c
			}
		}
	}
	return ""
}

func isSeparator(r rune) bool { return r == '_' || r == '-' || r == ' ' || r == '.' }

// foldEqual compares a and b ignoring case and separators.
func foldEqual(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) {
			r, size := utf8.DecodeRuneInString(a[i:])
			if !isSeparator(r) {
				break
			}
			i += size
		}
		for j < len(b) {
			r, size := utf8.DecodeRuneInString(b[j:])
			if !isSeparator(r) {
				break
			}
			j += size
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		ra, sa := utf8.DecodeRuneInString(a[i:])
		rb, sb := utf8.DecodeRuneInString(b[j:])
		if unicode.ToLower(ra) != unicode.ToLower(rb) {
			return false
		}
		i, j = i+sa, j+sb
	}
}

// hasPart reports whether word is one of c's parts between '_', '-' or '.',
// ignoring case, and not the whole of c.
func hasPart(c, word string) bool {
	start := 0
	for i := 0; i <= len(c); i++ {
		if i == len(c) || c[i] == '_' || c[i] == '-' || c[i] == '.' {
			if part := c[start:i]; len(part) != len(c) && strings.EqualFold(part, word) {
				return true
			}
			start = i + 1
		}
	}
	return false
}

const maxEditRunes = 64

// editDistance is the optimal string alignment distance between a and b, in
// code points; strings longer than maxEditRunes are only equal or far.
func editDistance(a, b string) int { return editDistanceWithin(a, b, 1<<20) }

// editDistanceWithin is editDistance when it is at most bound, and some
// number above bound otherwise: it stops as soon as two rows in a row (a
// transposition spans two) exceed the bound.
func editDistanceWithin(a, b string, bound int) int {
	var ra, rb [maxEditRunes]rune
	na, okA := runesInto(&ra, a)
	nb, okB := runesInto(&rb, b)
	if !okA || !okB {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	var rows [3][maxEditRunes + 1]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= nb; j++ {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= na; i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= nb; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound && prevMin > bound {
			return bound + 1
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[nb]
}

func runesInto(buf *[maxEditRunes]rune, s string) (int, bool) {
	n := 0
	for _, r := range s {
		if n == maxEditRunes {
			return n, false
		}
		buf[n] = r
		n++
	}
	return n, true
}

// quoteList renders names as "a", "b", "c", at most maxN of them.
func quoteList(names []string, maxN int) string {
	var b strings.Builder
	for i, n := range names {
		if i == maxN {
			b.WriteString(", ... (" + strconv.Itoa(len(names)-maxN) + " more)")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsontext.Quote(n))
	}
	return b.String()
}

// didYouMean is the message tail for a suggestion.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return " did you mean " + jsontext.Quote(s) + "?"
}

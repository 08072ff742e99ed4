package plan

import (
	"strconv"
	"strings"
	"unicode"
)

// suggest returns the candidate closest to word, for "did you mean": the
// same word in another case or spelling of separators, else the one at the
// smallest edit distance (transpositions count one) within a third of the
// word's length, else a candidate that contains the word as one of its
// '_'-separated parts. "" when nothing is close.
func suggest(word string, candidates []string) string {
	if word == "" || len(candidates) == 0 {
		return ""
	}
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' || r == '.' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	fw := fold(word)
	for _, c := range candidates {
		if c != word && fold(c) == fw {
			return c
		}
	}
	best, bestD := "", 1<<30
	limit := max(1, len([]rune(word))/3)
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := editDistance(word, c); d < bestD && d <= limit {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	if len(word) >= 2 {
		for _, c := range candidates {
			for _, part := range strings.FieldsFunc(c, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
				if strings.EqualFold(part, word) && part != c {
					return c
				}
			}
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b, in
// code points.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// quoteList renders names as "a", "b", "c", at most max of them.
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
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// didYouMean is the message tail for a suggestion.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return " did you mean " + strconv.Quote(s) + "?"
}

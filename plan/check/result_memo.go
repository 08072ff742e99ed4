package check

import (
	"strings"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// The result check's memo. A run checks every step's result against its
// tool's outputSchema (validate_result.go); decoding each result into Go
// values and walking it with jsonschema was much of what `planctl run`
// allocated on a chain or a fan-in plan on tools with an outputSchema, and
// all of its time after the last step. Most outputSchemas
// look at no more than the structure of a value: its kinds, its keys, where
// an integer stands. Under such a schema two results of the same skeleton
// (resultSkeleton: the value with every string emptied and every plain
// integer made 0) pass or fail together, and fail alike: what the check
// says of a result that fails names locations (keys, indexes), kinds,
// counts and keys, which the skeleton keeps, never a string or an
// integer it erased. So a skeleton's verdict, once found, is its verdict
// again without a decode. A tool's results mostly share a few skeletons,
// whatever their strings and counts.

// resultMemo is what a Tool remembers of its result checks.
type resultMemo struct {
	once       sync.Once
	structural bool // the outputSchema decides on no more than a skeleton
	mu         sync.Mutex
	verdicts   map[string]string // skeleton -> what the check said of it ("" passed)
}

const (
	// maxSkeleton bounds a skeleton the memo keeps: a larger result is
	// checked whole every time (its check costs far more than a lookup).
	maxSkeleton = 1024
	// maxMemoSkeletons bounds the skeletons a tool remembers (a server
	// checks results from many plans): past it, nothing new is kept. With
	// maxSkeleton and maxMemoVerdict, a tool's memo holds 384 KiB at most.
	maxMemoSkeletons = 256
	// maxMemoVerdict bounds the text of a failing verdict the memo keeps.
	maxMemoVerdict = 512
)

// CheckResult is checkResultWhole with the memo of skeletons' verdicts.
func CheckResult(t *plan.Tool, result []byte) string {
	if compiledOutput(t) == nil {
		return ""
	}
	m := &memoOf(t).resultMemo
	m.once.Do(func() {
		if doc, err := outputDoc(t); err == nil {
			m.structural = structuralSchema(doc, doc, true, map[string]bool{})
		}
	})
	if !m.structural {
		return checkResultWhole(t, result)
	}
	var arr [256]byte
	key, ok := resultSkeleton(arr[:0], result)
	if !ok {
		return checkResultWhole(t, result)
	}
	m.mu.Lock()
	msg, seen := m.verdicts[string(key)]
	m.mu.Unlock()
	if seen {
		return msg
	}
	msg = checkResultWhole(t, result)
	if len(msg) <= maxMemoVerdict {
		m.mu.Lock()
		if m.verdicts == nil {
			m.verdicts = map[string]string{}
		}
		if len(m.verdicts) < maxMemoSkeletons {
			m.verdicts[string(key)] = msg
		}
		m.mu.Unlock()
	}
	return msg
}

// resultSkeleton appends to dst what a structural schema can see of the
// JSON value b: its structure and keys as written, every string value as
// "", every number that is a plain integer (digits, an optional minus) as
// 0, every other number, true, false and null as written; no whitespace.
// ok is false when the skeleton grows past maxSkeleton. b is valid JSON
// (a result is checked when it arrives).
func resultSkeleton(dst, b []byte) (_ []byte, ok bool) {
	for i := 0; i < len(b); {
		switch c := b[i]; skelClass[c] {
		case skelSpace:
			i++
			continue
		case skelQuote:
			end := jsontext.SkipString(b, i)
			if j := jsontext.SkipSpace(b, end); j < len(b) && b[j] == ':' {
				dst = append(dst, b[i:end]...) // a key: the schema names keys
			} else {
				dst = append(dst, '"', '"')
			}
			i = end
		case skelNumber:
			end, integer := jsontext.SkipNumber(b, i)
			if integer && b[end-1] != '-' {
				dst = append(dst, '0')
			} else { // a fraction or an exponent, kept as written; a lone '-' (not JSON) too
				dst = append(dst, b[i:end]...)
			}
			i = end
		case skelPunct:
			dst = append(dst, c)
			i++
		default: // true, false, null: copied up to the byte that ends them
			j := i + 1
			for j < len(b) && skelClass[b[j]] == skelOther {
				j++
			}
			dst = append(dst, b[i:j]...)
			i = j
		}
		if len(dst) > maxSkeleton {
			return dst, false
		}
	}
	return dst, true
}

// resultSkeleton's classes of a byte, read from a table.
const (
	skelOther = iota
	skelSpace
	skelQuote
	skelNumber
	skelPunct
)

var skelClass = [256]uint8{
	' ': skelSpace, '\t': skelSpace, '\n': skelSpace, '\r': skelSpace,
	'"': skelQuote,
	'-': skelNumber, '0': skelNumber, '1': skelNumber, '2': skelNumber, '3': skelNumber, '4': skelNumber,
	'5': skelNumber, '6': skelNumber, '7': skelNumber, '8': skelNumber, '9': skelNumber,
	'{': skelPunct, '}': skelPunct, '[': skelPunct, ']': skelPunct, ',': skelPunct, ':': skelPunct,
}

// plainInteger reports whether a number literal is an optional minus and
// digits only: an integer to every schema keyword a skeleton keeps.
func plainInteger(n []byte) bool {
	if len(n) > 0 && n[0] == '-' {
		n = n[1:]
	}
	if len(n) == 0 {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// structuralSchema reports whether the decoded schema s (within root)
// decides on no more of a value than its skeleton keeps: it is made only
// of keywords that look at kinds, keys, counts and positions, and of
// subschemas likewise, through local $refs. Anything else (enum, const,
// pattern, format, minimum, uniqueItems, a remote $ref, a keyword it does
// not know) means no, and so does an "$id" below the root (a $ref beside
// it would not be read from the root). refs holds the $refs being looked
// at (a recursive schema is structural when the rest of it is).
func structuralSchema(root, s any, top bool, refs map[string]bool) bool {
	switch s := s.(type) {
	case bool:
		return true
	case map[string]any:
		for k, v := range s {
			switch k {
			case "type", "required", "minItems", "maxItems", "minProperties", "maxProperties",
				"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly",
				"$comment", "$schema", "$defs", "definitions":
				// what they look at a skeleton keeps, or nothing ($defs are
				// looked at through a $ref)
			case "properties", "patternProperties":
				m, ok := v.(map[string]any)
				if !ok {
					return false
				}
				for _, sub := range m {
					if !structuralSchema(root, sub, false, refs) {
						return false
					}
				}
			case "additionalProperties", "items", "not":
				if l, ok := v.([]any); ok && k == "items" { // items as a list (drafts before 2020)
					if !structuralList(root, l, refs) {
						return false
					}
				} else if !structuralSchema(root, v, false, refs) {
					return false
				}
			case "allOf", "anyOf", "oneOf", "prefixItems":
				l, ok := v.([]any)
				if !ok || !structuralList(root, l, refs) {
					return false
				}
			case "$ref":
				ref, ok := v.(string)
				if !ok {
					return false
				}
				if refs[ref] {
					continue
				}
				target := resolveRef(root, ref)
				if target == nil {
					return false
				}
				refs[ref] = true
				if !structuralSchema(root, target, false, refs) {
					return false
				}
			case "$id":
				if !top {
					return false
				}
			default:
				if !strings.HasPrefix(k, "x-") {
					return false
				}
			}
		}
		return true
	}
	return false
}

func structuralList(root any, l []any, refs map[string]bool) bool {
	for _, sub := range l {
		if !structuralSchema(root, sub, false, refs) {
			return false
		}
	}
	return true
}

package check

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/planctl/planctl/plan"
)

// The part of a toolInfo that its inputSchema alone decides, made once per
// tool and shared by every validation after (a server validates each plan
// against the same catalog; flattening the inputSchema anew for every plan
// was much of a served plan's preflight).
//
// Flattening charges the validation's schema work (flatten), and a budget
// too small cuts it short with looser results. So that a validation gives
// the same diagnostics with the cache as without, byte for byte:
//   - only a flatten that ran to its end within its budget is kept;
//   - a validation reusing it is charged the same work, and reuses it only
//     when the work it has left would have let the flatten run to its end
//     (at least its cost); otherwise it flattens anew, as before the cache,
//     and is cut short the same way.

// schemaMemo is what the checks derive from one tool's schemas, made once
// and only read after; it lives on the tool (Tool.Memo).
type schemaMemo struct {
	// The compiled inputSchema.
	inputOnce     sync.Once
	inputCompiled *jsonschema.Schema
	// The compiled outputSchema, for result checks (validate_result.go).
	outputOnce     sync.Once
	outputCompiled *jsonschema.Schema
	outShallowOnce sync.Once
	outShallow     map[string]bool // result members the outputSchema checks only the kind of (shallowParams)
	outShallowOK   bool
	resultMemo     resultMemo // skeletons of results that passed (result_memo.go)
	// The decoded schemas.
	docsOnce      sync.Once
	inDoc, outDoc any
	inErr, outErr error
	// What the validator derives from the inputSchema.
	inInfo atomic.Pointer[inputInfo]
	// The REQUIRED_SHAPE warning's message for this tool, "" for none.
	requiredShapeOnce sync.Once
	requiredShapeMsg  string
}

// schemaMemoKey is the key of a tool's schemaMemo.
type schemaMemoKey struct{}

// memoOf is t's schemaMemo.
func memoOf(t *plan.Tool) *schemaMemo {
	return t.Memo(schemaMemoKey{}, func() any { return new(schemaMemo) }).(*schemaMemo)
}

// inputInfo is what newToolInfo derives from a tool's decoded inputSchema.
// It is only read once made.
type inputInfo struct {
	props       map[string]any // the top-level properties; nil when it lists none
	names       []string       // their names, sorted
	required    []string       // in the schema's order
	closed      bool
	open        bool
	shallow     map[string]bool
	shallowRest bool
	cost        int // the schema work its flatten charged
}

// toolInputInfo is the tool's inputInfo for a validation with work left
// (nil: unbounded), charged to it as making it would have been.
func toolInputInfo(t *plan.Tool, doc any, work *int) *inputInfo {
	m := memoOf(t)
	if in := m.inInfo.Load(); in != nil && (work == nil || *work >= in.cost) {
		if work != nil {
			*work -= in.cost
		}
		return in
	}
	in, complete := makeInputInfo(doc, work)
	if complete {
		m.inInfo.Store(in) // concurrent makers store equal values
	}
	return in
}

// makeInputInfo derives the inputInfo of doc, charging work, and reports
// whether its flatten ran to its end (so that any budget of at least
// in.cost gives the same inputInfo).
func makeInputInfo(doc any, work *int) (*inputInfo, bool) {
	in := &inputInfo{}
	// The top-level parameters, with $ref and allOf resolved (an
	// inputSchema with alternatives at the top is left to jsonschema).
	bs, cost, complete := flattenCost(doc, doc, work)
	in.cost = cost
	if len(bs) == 1 {
		br := bs[0]
		if br.props != nil {
			in.props = make(map[string]any, len(br.props))
			for k, v := range br.props {
				in.props[k] = conj(v)
				in.names = append(in.names, k)
			}
			sort.Strings(in.names)
		}
		for k := range br.required {
			in.required = append(in.required, k)
		}
		sort.Slice(in.required, func(i, j int) bool {
			oi, oj := requiredOrder(doc, in.required[i]), requiredOrder(doc, in.required[j])
			return oi < oj || (oi == oj && in.required[i] < in.required[j])
		})
		in.closed = br.closed
		in.open = br.extra != nil
	}
	in.shallow, in.shallowRest = shallowParams(doc)
	return in, complete
}

package plan

// Code describes one diagnostic code of the validator's catalogue. Codes are
// a stable contract (tools filter and suppress by them); wording may improve.
type Code struct {
	ID       string
	Severity Severity // the usual severity; a few codes vary (see Summary)
	Group    string
	Summary  string // one line: what the check finds
}

// Codes is the catalogue of every diagnostic the validator can give, grouped
// by what they check (the document, a step's shape, its arguments, its
// references, their paths); docs/diagnostics.md is generated from it, in
// this order. The SARIF renderer lists it as the rules.
var Codes = []Code{
	{"JSON_SYNTAX", SeverityError, "document", "the file is not valid JSON"},
	{"DUPLICATE_KEY", SeverityError, "document", "an object repeats a key; parsers disagree on which value wins"},
	{"PLAN_SHAPE", SeverityError, "document", "the document is not a plan, an array of steps, or a tools/call of execute_plan"},
	{"UNKNOWN_PLAN_KEY", SeverityError, "document", "the plan object has a key other than \"steps\""},
	{"EMPTY_PLAN", SeverityError, "document", "the plan has no steps"},
	{"PLAN_LIMITS", SeverityError, "document", "the plan is larger than the byte or step limit"},

	{"STEP_SHAPE", SeverityError, "step shape", "a step is not an object"},
	{"UNKNOWN_STEP_KEY", SeverityError, "step shape", "a step has a key other than \"id\", \"tool\" and \"args\""},
	{"MISSING_STEP_ID", SeverityError, "step shape", "a step has no id (or an empty one)"},
	{"STEP_ID_TYPE", SeverityError, "step shape", "a step id is not a string"},
	{"DUPLICATE_STEP_ID", SeverityError, "step shape", "two steps have the same id"},
	{"STEP_ID_STYLE", SeverityWarning, "step shape", "a step id has spaces or characters other than letters, digits, '_', '-' and '.'"},
	{"MISSING_TOOL", SeverityError, "step shape", "a step names no tool"},
	{"UNKNOWN_TOOL", SeverityError, "step shape", "a step names a tool the catalog does not have"},
	{"ARGS_SHAPE", SeverityError, "step shape", "a step's \"args\" is not an object"},
	{"MISSING_ARGS", SeverityWarning, "step shape", "a step has no \"args\" (it runs with {})"},

	{"MISSING_REQUIRED_ARG", SeverityError, "arguments vs inputSchema", "a required argument is missing (a reference counts as given)"},
	{"UNKNOWN_ARG", SeverityWarning, "arguments vs inputSchema", "an argument the inputSchema does not list (an error when additionalProperties is false)"},
	{"ARG_TYPE", SeverityError, "arguments vs inputSchema", "a literal argument has the wrong JSON type"},
	{"ARG_SCHEMA", SeverityError, "arguments vs inputSchema", "a literal argument breaks its schema (enum, range, pattern, nested values)"},
	{"ARG_JSON_STRING", SeverityWarning, "arguments vs inputSchema", "a string argument holds JSON text where the value itself was likely meant"},

	{"REF_MALFORMED", SeverityError, "reference form", "output_by_reference is not an object with exactly one key"},
	{"REF_PATH_TYPE", SeverityError, "reference form", "a reference's path is not an array"},
	{"REF_PATH_ELEMENT", SeverityError, "reference form", "a path element is not a string or an integer"},
	{"REF_EXTRA_KEYS", SeverityError, "reference form", "a reference object has keys beside output_by_reference (they are ignored)"},
	{"REF_NESTED", SeverityWarning, "reference form", "a reference nested inside a literal is passed to the tool unchanged"},
	{"REF_LOOKALIKE", SeverityWarning, "reference form", "something that looks like a reference but is not one (a misspelt key, \"$step.key\", \"{{steps.x}}\")"},

	{"REF_SELF", SeverityError, "reference target", "a step references its own output"},
	{"REF_FORWARD", SeverityError, "reference target", "a step references a later step"},
	{"REF_UNDEFINED_STEP", SeverityError, "reference target", "a step references a step id that does not exist"},
	{"REF_NOT_SHARABLE", SeverityError, "reference target", "a reference on a parameter that is not sharable"},
	{"REF_SHARABLE_UNKNOWN", SeverityWarning, "reference target", "the tool carries no sharable marks: planctl assumed the parameter is sharable"},

	{"REF_UNKNOWN_PROPERTY", SeverityError, "path vs outputSchema", "the path names a property the outputSchema does not have (a warning when the schema allows other properties)"},
	{"REF_INDEX_NOT_INTEGER", SeverityError, "path vs outputSchema", "the path indexes an array with something that is not an integer"},
	{"REF_TRAVERSE_SCALAR", SeverityError, "path vs outputSchema", "the path walks into a string, number, boolean or null"},
	{"REF_INDEX_RANGE", SeverityError, "path vs outputSchema", "an array index past the length the schema allows (a negative index: a warning)"},
	{"REF_MAYBE_MISSING", SeverityWarning, "path vs outputSchema", "the path crosses an optional or nullable value"},
	{"REF_TYPE_MISMATCH", SeverityError, "path vs outputSchema", "the referenced value's type does not fit the parameter's schema"},
	{"REF_WRAPPED_RESULT", SeverityError, "path vs outputSchema", "the path starts with \"result\", but references walk the raw value a FastMCP tool returns, not its {\"result\": ...} wrapper"},
	{"REF_UNCHECKED", SeverityInfo, "path vs outputSchema", "a tool has no outputSchema, so the paths of references into its results cannot be checked (one note per tool, with the count)"},

	{"NUMBER_RANGE", SeverityWarning, "values", "a number a double cannot hold, or NaN/Infinity: Concierge receives null (0.0 when too small)"},
	{"FLOAT_PRECISION", SeverityWarning, "values", "a float with more digits than a double holds: Concierge receives the nearest double"},
	{"REQUIRED_SHAPE", SeverityWarning, "values", "a tool's inputSchema gives \"required\" as a string or object: Concierge lists each character or key as required"},
	{"ARG_COERCED", SeverityInfo, "values", "a FastMCP tool's pydantic model converts the value before the tool runs (\"5\" to 5)"},

	{"RESULT_SCHEMA", SeverityWarning, "results", "a step's result does not match its tool's outputSchema (found at run time; the response is unchanged)"},

	{"UNUSED_OUTPUT", SeverityInfo, "plan", "opt-in (validate --unused-output): a read-only step whose output no later step references; its result still reaches the model in the response"},
}

var codeIndex = func() map[string]int {
	m := make(map[string]int, len(Codes))
	for i, c := range Codes {
		m[c.ID] = i
	}
	return m
}()

// LookupCode returns the catalogue entry of a code, and whether it exists.
func LookupCode(id string) (Code, bool) {
	i, ok := codeIndex[id]
	if !ok {
		return Code{}, false
	}
	return Codes[i], true
}

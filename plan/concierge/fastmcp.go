package concierge

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// FastMCP tools. Real Concierge servers wrap tools written with FastMCP:
// Python functions whose arguments pydantic validates, in lax mode, against
// a model built from the signature (the inputSchema is that model's
// schema) before the function runs. What a FastMCP tool receives is
// therefore not what the plan passed. FastMCPArgs reproduces the part of
// pydantic that plans meet, by the inputSchema's JSON types:
//
//	integer  int as is; a float with no fraction (2.0 → 2); a bool (true → 1);
//	         a string of an integer, spaces around allowed (" 7" → 7)
//	number   int → float (5 → 5.0); a bool; a string of a number ("1.5")
//	boolean  bool; 0/1 (ints or floats); the strings true/false, 1/0, yes/no,
//	         on/off, t/f, y/n in any case, with no spaces around
//	string   str only (pydantic v2 converts no number to a string)
//	array    list only; items converted by "items"
//	object   dict only; declared properties converted by their schemas
//	null     None only
//
// Before that, FastMCP's pre_parse_json turns a top-level string argument
// that parses as a JSON array, object or null into that value, unless the
// parameter is "type": "string" (argument). An integer beyond a double to
// a number parameter is a float_type error (float() overflows), and an
// input_value is cut by UTF-8 bytes (truncateRepr).
//
// A type list with "null" ([T, "null"], or anyOf with {"type": "null"}) is
// Optional[T]: null passes, anything else converts as T. Arguments the
// schema does not declare are dropped (the function has no parameter for
// them); a missing required one is "Field required". Limits, on purpose:
// no $ref into $defs (a referenced model passes unchanged), no formats
// (dates, UUIDs), no constraints (minimum, pattern: the validator's
// ARG_SCHEMA says those), the first non-null branch of a union only, and
// undeclared keys of nested objects are kept. The text of a failure is
// pydantic 2's, wrapped as FastMCP wraps every exception of a tool:
// "Error executing tool NAME: 1 validation error for NAMEArguments ...".

// RuntimeFastMCP is Tool.Runtime of a FastMCP tool (a mock catalog's
// "runtime": "fastmcp").
const RuntimeFastMCP = "fastmcp"

// pydanticVersion is the version named in the errors' documentation links.
const pydanticVersion = "2.13"

// Coercion is one argument value pydantic converts: where, from what, to
// what (compact JSON).
type Coercion struct {
	Loc  []string
	From jsontext.Value
	To   string
}

// FastMCPArgs converts a call's arguments as FastMCP's pydantic model of
// tool would: it returns the arguments the function receives, as compact
// JSON, and the conversions made; or, when validation fails, FastMCP's
// error text. A float that comes out infinite or NaN ("1e400" to a number
// parameter) is written as Python's json writes it (Infinity, -Infinity,
// NaN), which JSON has no form for: a tool that passes it on returns it,
// and Concierge's text content (json.dumps) shows it so.
// jsontext.Parse reads those words (as a null that keeps its literal).
func FastMCPArgs(tool string, inputSchema []byte, args []byte) (out []byte, coerced []Coercion, errText string) {
	av, err := jsontext.Parse(args)
	if err != nil || av.Kind() != jsontext.Object {
		return args, nil, ""
	}
	sv, err := jsontext.Parse(inputSchema)
	if err != nil || sv.Kind() != jsontext.Object {
		return pyvalue.AppendJSON(nil, av), nil, ""
	}
	c := &pyConverter{floats: true}
	out = c.object(nil, sv, av, nil, true)
	if len(c.errs) > 0 {
		return nil, nil, "Error executing tool " + tool + ": " + c.report(tool)
	}
	return out, c.coerced, ""
}

// FastMCPValue converts one argument value v, at loc, under its property
// schema s as FastMCPArgs does: it returns the conversions made, and false
// when pydantic refuses the value.
func FastMCPValue(s, v jsontext.Value, loc []string) (coerced []Coercion, ok bool) {
	c := &pyConverter{}
	c.argument(nil, s, v, loc)
	return c.coerced, len(c.errs) == 0
}

// argument appends the top-level argument v converted by its property
// schema s. Before pydantic sees the arguments, FastMCP's pre_parse_json
// replaces a string that json.loads reads as a list, a dict or None, for
// every parameter not annotated exactly str: models often send a list as
// its JSON text. The replaced value is then converted as any other; its
// one coercion is from the string to what the tool receives, since the
// parsed value has no place in the plan's text.
func (c *pyConverter) argument(dst []byte, s, v jsontext.Value, loc []string) []byte {
	parsed, ok := preParseJSON(s, v)
	if !ok {
		return c.value(dst, s, v, loc)
	}
	sub := &pyConverter{floats: c.floats}
	out := sub.value(nil, s, parsed, loc)
	c.errs = append(c.errs, sub.errs...)
	if len(sub.errs) == 0 {
		c.coerced = append(c.coerced, Coercion{Loc: append([]string(nil), loc...), From: v, To: string(out)})
	}
	return append(dst, out...)
}

// preParseJSON is FastMCP's pre_parse_json for one argument: the value
// json.loads makes of a string argument when it is an array, an object or
// null, unless the parameter is annotated str, which a catalog writes as
// "type": "string" (an Optional[str] is published as an anyOf with null,
// and is pre-parsed). json.loads also reads NaN and Infinity; they are
// floats, which FastMCP keeps as the string, like every number and string.
func preParseJSON(s, v jsontext.Value) (jsontext.Value, bool) {
	if v.Kind() != jsontext.String {
		return jsontext.Value{}, false
	}
	if s.Kind() == jsontext.Object {
		if t := s.Get("type"); t.Kind() == jsontext.String && t.Str() == "string" {
			return jsontext.Value{}, false
		}
	}
	p, err := jsontext.Parse([]byte(v.Str()))
	if err != nil || jsontext.IsNonFinite(p) {
		return jsontext.Value{}, false
	}
	switch p.Kind() {
	case jsontext.Array, jsontext.Object, jsontext.Null:
		return p, true
	}
	return jsontext.Value{}, false
}

type pydanticError struct {
	loc   []string
	typ   string
	msg   string
	input jsontext.Value
}

type pyConverter struct {
	errs    []pydanticError
	coerced []Coercion
	// floats writes a float that comes out infinite or NaN as Python's
	// json writes it (Infinity, -Infinity, NaN) instead of null: the value
	// the function receives, which JSON cannot carry (FastMCPArgs).
	floats bool
}

func (c *pyConverter) fail(loc []string, typ, msg string, in jsontext.Value) {
	c.errs = append(c.errs, pydanticError{loc: append([]string(nil), loc...), typ: typ, msg: msg, input: in})
}

// report renders the errors as str(ValidationError) does.
func (c *pyConverter) report(tool string) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(c.errs)))
	if len(c.errs) == 1 {
		b.WriteString(" validation error for ")
	} else {
		b.WriteString(" validation errors for ")
	}
	b.WriteString(tool)
	b.WriteString("Arguments")
	for _, e := range c.errs {
		b.WriteString("\n")
		b.WriteString(strings.Join(e.loc, "."))
		b.WriteString("\n  ")
		b.WriteString(e.msg)
		b.WriteString(" [type=")
		b.WriteString(e.typ)
		b.WriteString(", input_value=")
		b.WriteString(truncateRepr(pyvalue.Repr(e.input)))
		b.WriteString(", input_type=")
		b.WriteString(pyvalue.TypeName(e.input))
		b.WriteString("]\n    For further information visit https://errors.pydantic.dev/")
		b.WriteString(pydanticVersion)
		b.WriteString("/v/")
		b.WriteString(e.typ)
	}
	return b.String()
}

// truncateRepr cuts a long input repr as pydantic-core does, by UTF-8
// bytes: past 50, the first 25 bytes and the last 24, each moved inward to
// a character boundary, around "...".
func truncateRepr(s string) string {
	const limit, head, tail = 50, 25, 24
	if len(s) <= limit {
		return s
	}
	h := head
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "..." + s[t:]
}

// schemaTypes reads a schema's JSON types and whether null is allowed.
func schemaTypes(s jsontext.Value) (types []string, nullable bool) {
	if s.IsZero() || s.Kind() != jsontext.Object {
		return nil, false
	}
	if t := s.Get("type"); !t.IsZero() {
		switch t.Kind() {
		case jsontext.String:
			types = []string{t.Str()}
		case jsontext.Array:
			for _, e := range t.Elems() {
				if e.Kind() == jsontext.String {
					types = append(types, e.Str())
				}
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := s.Get(key); !u.IsZero() && u.Kind() == jsontext.Array {
			for _, br := range u.Elems() {
				bt, bn := schemaTypes(br)
				nullable = nullable || bn
				types = append(types, bt...)
			}
		}
	}
	var out []string
	for _, t := range types {
		if t == "null" {
			nullable = true
		} else {
			out = append(out, t)
		}
	}
	return out, nullable
}

// fastmcpBranch is the schema a non-null value converts by: s itself, or its
// first non-null anyOf/oneOf branch.
func fastmcpBranch(s jsontext.Value) jsontext.Value {
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := s.Get(key); !u.IsZero() && u.Kind() == jsontext.Array {
			for _, br := range u.Elems() {
				if ts, _ := schemaTypes(br); len(ts) > 0 {
					return br
				}
			}
		}
	}
	return s
}

// value appends v converted by schema s.
func (c *pyConverter) value(dst []byte, s jsontext.Value, v jsontext.Value, loc []string) []byte {
	types, nullable := schemaTypes(s)
	if len(types) == 0 && !nullable {
		return pyvalue.AppendJSON(dst, v) // any: unchanged
	}
	if v.Kind() == jsontext.Null && nullable {
		return append(dst, "null"...)
	}
	if len(types) == 0 {
		c.fail(loc, "none_required", "Input should be None", v)
		return dst
	}
	s = fastmcpBranch(s)
	out, ok := c.scalar(types[0], v, loc)
	if !ok {
		return dst
	}
	switch types[0] {
	case "array":
		items := s.Get("items")
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = c.value(dst, items, e, append(loc, strconv.Itoa(i)))
		}
		return append(dst, ']')
	case "object":
		return c.object(dst, s, v, loc, false)
	}
	if out != "" {
		if out != string(pyvalue.AppendJSON(nil, v)) {
			c.coerced = append(c.coerced, Coercion{Loc: append([]string(nil), loc...), From: v, To: out})
		}
		return append(dst, out...)
	}
	return pyvalue.AppendJSON(dst, v)
}

// object converts the declared properties of v; top-level drops the
// undeclared ones and reports missing required ones.
func (c *pyConverter) object(dst []byte, s jsontext.Value, v jsontext.Value, loc []string, top bool) []byte {
	props := s.Get("properties")
	required := PySet(s.Get("required"))
	dst = append(dst, '{')
	n := 0
	key := func(k string) { // a member's "key": (and the comma before)
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsontext.AppendJSONString(dst, k)
		dst = append(dst, ':')
	}
	if !props.IsZero() && props.Kind() == jsontext.Object {
		for _, p := range pyvalue.Members(props) {
			a := v.Get(p.Key)
			if a.IsZero() {
				if required[p.Key] {
					c.fail(append(loc, p.Key), "missing", "Field required", v)
				}
				continue
			}
			key(p.Key)
			if top {
				dst = c.argument(dst, p.Value, a, append(loc, p.Key))
			} else {
				dst = c.value(dst, p.Value, a, append(loc, p.Key))
			}
		}
	}
	if !top || props.IsZero() || props.Kind() != jsontext.Object {
		for _, m := range pyvalue.Members(v) {
			if !props.IsZero() && !props.Get(m.Key).IsZero() {
				continue
			}
			key(m.Key)
			dst = pyvalue.AppendJSON(dst, m.Value)
		}
	}
	return append(dst, '}')
}

// scalar converts v to JSON type typ: the converted JSON for scalars ("" to
// keep v as it is), and whether v is acceptable at all.
func (c *pyConverter) scalar(typ string, v jsontext.Value, loc []string) (string, bool) {
	switch typ {
	case "integer":
		return c.toInt(v, loc)
	case "number":
		return c.toNumber(v, loc)
	case "boolean":
		return c.toBool(v, loc)
	case "string":
		if v.Kind() == jsontext.String {
			return "", true
		}
		c.fail(loc, "string_type", "Input should be a valid string", v)
	case "array":
		if v.Kind() == jsontext.Array {
			return "", true
		}
		c.fail(loc, "list_type", "Input should be a valid list", v)
	case "object":
		if v.Kind() == jsontext.Object {
			return "", true
		}
		c.fail(loc, "dict_type", "Input should be a valid dictionary", v)
	default:
		return "", true // a type pydantic has no lax rule for here: unchanged
	}
	return "", false
}

// toInt converts v as pydantic's lax int does: scalar for "integer".
func (c *pyConverter) toInt(v jsontext.Value, loc []string) (string, bool) {
	switch v.Kind() {
	case jsontext.Number:
		if pyvalue.IsIntLiteral(v.Str()) {
			return pyvalue.NumberJSON(v.Str()), true
		}
		f, _ := strconv.ParseFloat(v.Str(), 64)
		if f != math.Trunc(f) {
			c.fail(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
			return "", false
		}
		if math.Abs(f) >= 1<<63 {
			c.fail(loc, "int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", v)
			return "", false
		}
		bf := new(big.Float).SetFloat64(f)
		bi, _ := bf.Int(nil)
		return bi.String(), true
	case jsontext.Bool:
		if v.Bool() {
			return "1", true
		}
		return "0", true
	case jsontext.String:
		if n, ok := pydanticIntString(v.Str()); ok {
			return n, true
		}
		c.fail(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", v)
		return "", false
	}
	c.fail(loc, "int_type", "Input should be a valid integer", v)
	return "", false
}

// toNumber converts v as pydantic's lax float does: scalar for "number".
func (c *pyConverter) toNumber(v jsontext.Value, loc []string) (string, bool) {
	switch v.Kind() {
	case jsontext.Number:
		if pyvalue.IsIntLiteral(v.Str()) {
			// float(int) rounds once, to nearest even; past the
			// largest double it raises, which pydantic reports as
			// float_type.
			f, err := strconv.ParseFloat(v.Str(), 64)
			if err != nil {
				c.fail(loc, "float_type", "Input should be a valid number", v)
				return "", false
			}
			return pyvalue.FloatRepr(f + 0), true // -0 is the int 0: 0.0
		}
		return pyvalue.NumberJSON(v.Str()), true
	case jsontext.Bool:
		if v.Bool() {
			return "1.0", true
		}
		return "0.0", true
	case jsontext.String:
		t, ok := pyUnderscores(strings.TrimSpace(v.Str()))
		f, err := strconv.ParseFloat(t, 64)
		if ok && (err == nil || math.IsInf(f, 0)) && !strings.ContainsAny(t, "xX") {
			switch {
			case !c.floats && (math.IsInf(f, 0) || math.IsNaN(f)):
				return "null", true // as the MCP wire carries it
			case math.IsNaN(f):
				return "NaN", true
			case math.IsInf(f, 1):
				return "Infinity", true
			case math.IsInf(f, -1):
				return "-Infinity", true
			}
			return pyvalue.FloatRepr(f), true
		}
		c.fail(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", v)
		return "", false
	}
	c.fail(loc, "float_type", "Input should be a valid number", v)
	return "", false
}

// toBool converts v as pydantic's lax bool does: scalar for "boolean".
func (c *pyConverter) toBool(v jsontext.Value, loc []string) (string, bool) {
	switch v.Kind() {
	case jsontext.Bool:
		return "", true
	case jsontext.Number:
		f, _ := strconv.ParseFloat(v.Str(), 64)
		switch f {
		case 0:
			return "false", true
		case 1:
			return "true", true
		}
		if pyvalue.IsIntLiteral(v.Str()) {
			c.fail(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
		} else {
			c.fail(loc, "bool_type", "Input should be a valid boolean", v)
		}
		return "", false
	case jsontext.String:
		switch strings.ToLower(v.Str()) { // no spaces: " yes" is refused
		case "true", "1", "yes", "on", "t", "y":
			return "true", true
		case "false", "0", "no", "off", "f", "n":
			return "false", true
		}
		c.fail(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
		return "", false
	}
	c.fail(loc, "bool_type", "Input should be a valid boolean", v)
	return "", false
}

// pydanticIntString parses a string as pydantic's lax int does: spaces
// around, an optional sign, ASCII digits with single underscores between
// them, and an optional fraction of zeros ("1.0"). It returns the integer.
func pydanticIntString(s string) (string, bool) {
	t, ok := pyUnderscores(strings.TrimSpace(s))
	if !ok {
		return "", false
	}
	if i := strings.IndexByte(t, '.'); i >= 0 {
		if strings.Trim(t[i+1:], "0") != "" {
			return "", false
		}
		t = t[:i]
	}
	d := strings.TrimLeft(t, "+-")
	if d == "" || len(t)-len(d) > 1 || strings.Trim(d, "0123456789") != "" {
		return "", false
	}
	bi, ok := new(big.Int).SetString(t, 10)
	if !ok {
		return "", false
	}
	return bi.String(), true
}

// pyUnderscores removes the underscores Python allows in a number (one
// between two digits) and reports whether every underscore was allowed.
func pyUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") {
		return s, true
	}
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if !digit(i-1) || !digit(i+1) {
				return "", false
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

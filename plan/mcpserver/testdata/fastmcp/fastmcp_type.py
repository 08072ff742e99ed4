"""FastMCP 2.14's Client on an outputSchema, for real: its own json_schema_to_type (vendored by vendor.sh, unchanged)
makes the type, and a pydantic TypeAdapter of it validates each answer's structuredContent, as
Client._parse_call_tool_result does to make CallToolResult.data (get_cached_typeadapter is a cached TypeAdapter for
a type that is not a function).

usage: python3 fastmcp_type.py VENDOR < {"schema": SCHEMA, "answers": [STRUCTURED_CONTENT, ...]}
prints {"type": TYPE, "data": [DATA, ...]}: TYPE describes the type in the form fastmcpType in
outputschema_test.go writes ("dataclass(a: T, b: U)", "dict[str, T]", "list[T]", "Literal", "Union[T, U]", "Any",
"str"...; a field or union that may be None is written as its other type), and each DATA is what .data holds, dumped
back to JSON by the same TypeAdapter, or {"error": MESSAGE} when validation failed (the Client then leaves .data None).
"""

import dataclasses
import json
import sys
import types
import typing

sys.path.insert(0, sys.argv[1])

from fastmcp_json_schema_type import json_schema_to_type  # noqa: E402
from pydantic import BaseModel, TypeAdapter  # noqa: E402


def describe(tp):
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return describe(args[0])
    if origin is typing.Literal:
        return "Literal"
    if origin in (typing.Union, types.UnionType):
        alts = [a for a in args if a is not type(None)]
        if len(alts) == 1:
            return describe(alts[0])
        return "Union[" + ", ".join(describe(a) for a in alts) + "]"
    if origin is list:
        return "list[" + (describe(args[0]) if args else "Any") + "]"
    if origin is dict:
        return "dict[str, " + (describe(args[1]) if len(args) == 2 else "Any") + "]"
    if dataclasses.is_dataclass(tp):
        fields = sorted(dataclasses.fields(tp), key=lambda f: f.name)
        return "dataclass(" + ", ".join(f.name + ": " + describe(f.type) for f in fields) + ")"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        extra = ", ..." if tp.model_config.get("extra") == "allow" else ""
        return "model(" + ", ".join(sorted(tp.model_fields)) + extra + ")"
    if tp is typing.Any:
        return "Any"
    if tp is type(None):
        return "None"
    if isinstance(tp, type):
        return tp.__name__
    return repr(tp)


def main():
    req = json.load(sys.stdin)
    tp = json_schema_to_type(req["schema"])
    adapter = TypeAdapter(tp)
    data = []
    for answer in req["answers"]:
        try:
            data.append(adapter.dump_python(adapter.validate_python(answer), mode="json"))
        except Exception as e:  # the Client logs it and leaves .data None
            data.append({"error": str(e)})
    json.dump({"type": describe(tp), "data": data}, sys.stdout)


main()

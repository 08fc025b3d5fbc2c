"""JSON schemas from typed Python functions, and argument checking against them.

A tool's schema is derived, never hand-written twice: parameter names, types
and defaults come from the signature, the description of the tool and of each
parameter from the docstring (the text before the first section, and the
``Args:`` section in Google style). Supported annotations are the ones a model
can fill in reliably: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``,
``X | None`` / ``Optional[X]``, ``list[X]`` and ``dict[str, ...]``. Anything
else is a programming error reported when the tool is defined, not when the
model calls it.

Validation checks the model's arguments against a schema (ours or a
hand-written one for dict-in/dict-out tools): required arguments present, no
unknown ones, types and enums right. It coerces the mistakes small models make
that have exactly one meaning ("5" for 5, 3 for 3.0, "true" for true) and
reports everything else as one message that lists what the tool expects.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

_SCALARS: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?):\s*$"
)
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


class SchemaError(TypeError):
    """A function cannot become a tool as written; the message says which parameter and why."""


@dataclass(frozen=True)
class Docstring:
    summary: str  # the text before the first section: what the model reads about the tool
    params: dict[str, str]


def parse_docstring(doc: str | None) -> Docstring:
    """Split a Google-style docstring into its summary and ``Args:`` descriptions."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    i = 0
    while i < len(lines) and not _SECTION.match(lines[i].strip()):
        summary.append(lines[i])
        i += 1
    section = ""
    current: str | None = None
    arg_indent = 0
    for line in lines[i:]:
        header = _SECTION.match(line.strip())
        if header and not line.startswith((" ", "\t")):
            section = header.group(1).lower()
            current = None
            continue
        if section not in ("args", "arguments", "parameters", "params") or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(line.strip())
        # A parameter line sits at the section's first indent; deeper lines continue it.
        if match and (current is None or indent <= arg_indent):
            current = match.group(1).lstrip("*")
            arg_indent = indent
            params[current] = match.group(2).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return Docstring("\n".join(summary).strip(), params)


def annotation_schema(annotation: Any, where: str) -> tuple[dict[str, Any], bool]:
    """The JSON schema for one annotation, and whether ``None`` is an accepted value."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) != 1:
            raise SchemaError(f"{where}: unions other than X | None are not supported")
        schema, _ = annotation_schema(members[0], where)
        return schema, True
    if origin is Literal:
        values = list(get_args(annotation))
        kinds = {type(v) for v in values}
        if len(kinds) == 1 and (kind := kinds.pop()) in _SCALARS:
            return {"type": _SCALARS[kind], "enum": values}, False
        return {"enum": values}, False
    if origin in (list, tuple, abc.Sequence):
        args = get_args(annotation)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise SchemaError(f"{where}: use list[X] or tuple[X, ...], not fixed tuples")
        item = args[0] if args else Any
        return {"type": "array", "items": annotation_schema(item, where)[0]}, False
    if origin in (dict, abc.Mapping):
        return {"type": "object"}, False
    if annotation is Any:
        return {}, True
    if annotation in (dict, list):
        return {"type": "object" if annotation is dict else "array"}, False
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}, False
    raise SchemaError(
        f"{where}: cannot describe {annotation!r} to a model; use str, int, float, bool, "
        "Literal[...], X | None, list[X] or dict[str, X]"
    )


@dataclass(frozen=True)
class FunctionSignature:
    """What ``Tool.from_function`` needs to know about a function."""

    description: str
    parameters: dict[str, Any]  # the JSON schema (type object)
    nullable: frozenset[str]  # parameters whose annotation accepts None
    context_param: str | None  # the parameter that receives the ToolContext, if any


def function_signature(fn: Callable[..., Any], context_type: type) -> FunctionSignature:
    """Derive a tool's description and parameter schema from ``fn``."""
    where = getattr(fn, "__qualname__", repr(fn))
    try:
        hints = typing.get_type_hints(fn)
    except NameError as exc:
        raise SchemaError(f"{where}: cannot resolve a type hint ({exc})") from exc
    doc = parse_docstring(inspect.getdoc(fn))
    properties: dict[str, Any] = {}
    required: list[str] = []
    nullable: set[str] = set()
    context_param: str | None = None
    for name, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(name, inspect.Parameter.empty)
        if annotation is context_type or name == "ctx":
            context_param = name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise SchemaError(f"{where}: *args/**kwargs cannot be described to a model")
        if annotation is inspect.Parameter.empty:
            raise SchemaError(f"{where}: parameter {name!r} needs a type annotation")
        schema, accepts_none = annotation_schema(annotation, f"{where}({name})")
        if accepts_none:
            nullable.add(name)
        if doc.params.get(name):
            schema["description"] = doc.params[name]
        if param.default is inspect.Parameter.empty:
            required.append(name)
        elif param.default is not None:
            schema["default"] = param.default
        properties[name] = schema
    if not doc.summary:
        raise SchemaError(f"{where}: a tool needs a docstring; the model reads it")
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    parameters["required"] = required
    return FunctionSignature(doc.summary, parameters, frozenset(nullable), context_param)


# -- validation -------------------------------------------------------------------------------

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


def _coerce(value: Any, schema: Mapping[str, Any]) -> tuple[Any, bool]:
    """``(value, ok)``: the value in the schema's type if it unambiguously is one."""
    kind = schema.get("type")
    if kind is None:
        return value, True
    if kind == "string":
        return value, isinstance(value, str)
    if kind == "boolean":
        if isinstance(value, bool):
            return value, True
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", True
        return value, False
    if kind == "integer":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, int):
            return value, True
        if isinstance(value, float) and value.is_integer():
            return int(value), True
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            return int(value), True
        return value, False
    if kind == "number":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, int | float):
            return value, True
        if isinstance(value, str):
            try:
                return float(value), True
            except ValueError:
                return value, False
        return value, False
    if kind == "array":
        return value, isinstance(value, list)
    if kind == "object":
        return value, isinstance(value, dict)
    return value, True


def _check(value: Any, schema: Mapping[str, Any], where: str, problems: list[str]) -> Any:
    value, ok = _coerce(value, schema)
    if not ok:
        wanted = _TYPE_NAMES.get(str(schema.get("type")), str(schema.get("type")))
        problems.append(f"{where} must be {wanted}, got {_show(value)}")
        return value
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(_show(v) for v in schema["enum"])
        problems.append(f"{where} must be one of {options}, got {_show(value)}")
    if schema.get("type") == "array" and isinstance(schema.get("items"), Mapping):
        value = [_check(v, schema["items"], f"{where}[{i}]", problems) for i, v in enumerate(value)]
    if schema.get("type") == "object" and "properties" in schema and isinstance(value, dict):
        value = _check_object(value, schema, where, problems)
    return value


def _check_object(
    args: Mapping[str, Any], schema: Mapping[str, Any], where: str, problems: list[str]
) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema.get("properties") or {}
    prefix = f"{where}." if where else ""
    out: dict[str, Any] = {}
    for name in schema.get("required") or ():
        if args.get(name) is None:
            problems.append(f"missing required argument {prefix}{name}")
    extra_ok = schema.get("additionalProperties", False) is not False or not properties
    for name, value in args.items():
        if name not in properties:
            if not extra_ok:
                problems.append(f"unknown argument {prefix}{name}")
                continue
            out[name] = value
        elif value is None:
            out[name] = None  # "not given"; the caller decides what None means
        else:
            out[name] = _check(value, properties[name], f"{prefix}{name}", problems)
    return out


def validate(
    args: Mapping[str, Any], schema: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The arguments (coerced where unambiguous) and every problem found, in order."""
    problems: list[str] = []
    checked = _check_object(args, schema, "", problems)
    return checked, problems


def describe_parameters(schema: Mapping[str, Any]) -> str:
    """One line per argument, for error messages: name, type, required or default."""
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if not properties:
        return "  (no arguments)"
    lines = []
    for name, prop in properties.items():
        kind = prop.get("type", "any")
        if "enum" in prop:
            kind = " | ".join(_show(v) for v in prop["enum"])
        elif kind == "array" and isinstance(prop.get("items"), Mapping):
            kind = f"list of {prop['items'].get('type', 'any')}"
        if name in required:
            note = "required"
        elif "default" in prop:
            note = f"optional, default {_show(prop['default'])}"
        else:
            note = "optional"
        lines.append(f"  {name}: {kind} ({note})")
    return "\n".join(lines)


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, bool) else str(value).lower()
    if value is None:
        text = "null"
    return text if len(text) <= 60 else text[:57] + "..."

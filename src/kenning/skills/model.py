"""What a skill is: its name rules and the front matter of its SKILL.md.

A skill is a folder ``skills/<name>/`` holding ``SKILL.md``: YAML front matter
between two ``---`` lines, then a Markdown body. The front matter needs
``name`` (equal to the folder name) and ``description`` (what the skill is for
and when to use it); ``version``, ``tags`` and ``related`` are optional and
other keys are kept as the author wrote them. Everything Kenning itself knows
about a skill (who made it, pinned, active/stale/archived, use) lives outside
this text, in :mod:`kenning.skills.state`, so the author's file stays theirs.

Parsing is pure and strict: :func:`parse_skill_md` either returns a complete
:class:`SkillMeta` and body or raises :class:`SkillError` with every rule the
text breaks. YAML is read with the safe loader only (libyaml's when present,
because the index parses thousands of front matters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import yaml

from kenning.skills.errors import ErrorKind, SkillError

SKILL_FILE = "SKILL.md"
NAME_RULE = (
    "1-64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
)
MAX_DESCRIPTION_CHARS = 1024
MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_RELATED = 20

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_FENCE = re.compile(r"^---[ \t]*$")
_FENCE_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$")

try:  # libyaml's loader is ~10x faster, which matters at thousands of skills
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a skill name, or None when it can."""
    if not isinstance(name, str) or not _NAME.match(name):
        return f"the name {name!r} is not valid: use {NAME_RULE}"
    return None


def check_name(name: object) -> str:
    """``name`` if it is a valid skill name, else a SkillError saying the rule."""
    problem = name_problem(name)
    if problem is not None:
        raise SkillError(ErrorKind.INVALID, problem[0].upper() + problem[1:] + ".")
    assert isinstance(name, str)
    return name


@dataclass(frozen=True)
class SkillMeta:
    """The front matter of one SKILL.md, checked."""

    name: str
    description: str
    version: str | None = None
    tags: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @cached_property
    def one_line(self) -> str:
        """The description on one line (whitespace collapsed), as the index shows it."""
        return " ".join(self.description.split())


def split_front_matter(text: str) -> tuple[str, str]:
    """(front matter YAML, body) of a SKILL.md; SkillError if there is no front matter."""
    lines = text.removeprefix("\ufeff").split("\n")
    if not lines or not _FENCE.match(lines[0].rstrip("\r")):
        raise SkillError(
            ErrorKind.INVALID,
            "SKILL.md must start with YAML front matter: a line '---', the fields, "
            "then another '---'.",
            "Begin the file with:\n---\nname: <folder name>\ndescription: <what it is for "
            "and when to use it>\n---",
        )
    for i in range(1, len(lines)):
        if _FENCE_END.match(lines[i].rstrip("\r")):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    raise SkillError(
        ErrorKind.INVALID,
        "SKILL.md's front matter is never closed: no second '---' line.",
        "Add a line holding only '---' after the last field.",
    )


def parse_skill_md(text: str, *, folder: str | None = None) -> tuple[SkillMeta, str]:
    """The checked front matter and the body of ``text``.

    With ``folder``, the front matter's name must equal it. Raises SkillError
    listing every problem found (in ``problems``), not just the first.
    """
    raw, body = split_front_matter(text)
    try:
        data = yaml.load(raw, Loader=_Loader) if raw.strip() else {}
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" (line {where.line + 2})" if where is not None else ""
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise SkillError(
            ErrorKind.INVALID,
            f"SKILL.md's front matter is not valid YAML{at}: {problem}.",
            "Quote values that contain ': ' or start with a special character, "
            'e.g. description: "Deploy: the safe way".',
        ) from None
    if not isinstance(data, dict):
        raise SkillError(
            ErrorKind.INVALID,
            "SKILL.md's front matter must be a mapping of fields (name: ..., description: ...).",
            "Write one 'key: value' per line between the two '---' lines.",
        )
    problems: list[str] = []
    meta = _meta(data, folder, problems)
    if not body.strip():
        problems.append(
            "the body is empty: after the front matter, say when the skill applies, "
            "the steps, the pitfalls and how to verify"
        )
    if problems or meta is None:
        raise SkillError(
            ErrorKind.INVALID,
            "SKILL.md breaks "
            + ("a rule" if len(problems) == 1 else f"{len(problems)} rules")
            + ": "
            + "; ".join(problems)
            + ".",
            "Fix these and retry; nothing was written.",
            problems=problems,
        )
    return meta, body


def _meta(data: dict[Any, Any], folder: str | None, problems: list[str]) -> SkillMeta | None:
    name = data.get("name")
    description = data.get("description")
    if name is None:
        problems.append("the front matter has no 'name'")
    elif (problem := name_problem(name)) is not None:
        problems.append(problem)
    elif folder is not None and name != folder:
        problems.append(f"the name {name!r} differs from the folder name {folder!r}")
    if not isinstance(description, str) or not description.strip():
        problems.append("the front matter needs a non-empty 'description' (text)")
    elif len(description) > MAX_DESCRIPTION_CHARS:
        problems.append(
            f"the description is {len(description):,} characters "
            f"(at most {MAX_DESCRIPTION_CHARS:,}); keep it to what the skill is for and "
            "when to use it, and move detail into the body"
        )
    version = data.get("version")
    if version is not None and not isinstance(version, str | int | float):
        problems.append("'version' must be text such as 1.2 or \"2024-05\"")
    tags = _string_list(data.get("tags"), "tags", MAX_TAGS, problems)
    for tag in tags:
        if len(tag) > MAX_TAG_CHARS or "\n" in tag or not tag.strip():
            problems.append(
                f"the tag {tag[:50]!r} must be one line of 1-{MAX_TAG_CHARS} characters"
            )
    related = _string_list(data.get("related"), "related", MAX_RELATED, problems)
    for other in related:
        if name_problem(other) is not None:
            problems.append(f"'related' lists {other[:70]!r}, which is not a skill name")
    if problems:
        return None
    assert isinstance(name, str) and isinstance(description, str)
    extra = {k: v for k, v in data.items() if k not in _KNOWN}
    return SkillMeta(
        name=name,
        description=description.strip(),
        version=None if version is None else str(version),
        tags=tuple(tags),
        related=tuple(related),
        extra=extra,
    )


_KNOWN = frozenset({"name", "description", "version", "tags", "related"})


def _string_list(value: object, key: str, limit: int, problems: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):  # "tags: git" means one tag
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"'{key}' must be a list of text, e.g. {key}: [a, b]")
        return []
    if len(value) > limit:
        problems.append(f"'{key}' lists {len(value)} items (at most {limit})")
    return list(value)


def compose_skill_md(
    name: str,
    description: str,
    body: str,
    *,
    tags: tuple[str, ...] | list[str] = (),
    version: str | None = None,
    related: tuple[str, ...] | list[str] = (),
) -> str:
    """A SKILL.md text from its parts (fields in a fixed order, so output is stable)."""
    fields: dict[str, Any] = {"name": name, "description": description.strip()}
    if version:
        fields["version"] = version
    if tags:
        fields["tags"] = list(tags)
    if related:
        fields["related"] = list(related)
    # One key at a time: block style for the mapping ("name: x"), flow style for
    # lists of words ("tags: [git, ops]"), no line wrapping of long descriptions.
    front = "".join(
        yaml.safe_dump(
            {key: value},
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=None if isinstance(value, list) else False,
            width=1_000_000,
        )
        for key, value in fields.items()
    )
    return f"---\n{front}---\n\n{body.strip()}\n"


BODY_TEMPLATE = """\
# {title}

## When to use
- The situations this skill is for, and the ones it is not for.

## Steps
1. First step.
2. Next step.

## Pitfalls
- A rule to follow — and, in one clause, why.

## Verify
- How to check that the result is right.
"""


def body_template(name: str) -> str:
    """A skeleton body with the four sections a good skill has."""
    return BODY_TEMPLATE.format(title=name.replace("-", " ").replace("_", " ").capitalize())

"""The threat screen's compiled tables, kept on disk between processes.

A process that screened one text spent about 2.7 s before the verdict on this machine: 1 s
compiling the rule table's 1,300 regexes as the pattern modules were imported, 1.7 s in the
first scan's :func:`.screen._plan` (the prefilter and :mod:`.starts` reading every regex's
syntax tree, and the two trie regexes over 10,800 literals). ``kenning memory add`` took 3 s
of which the add was 1.5 ms, and every CLI call, hook and MCP server start that screens paid
it. None of it depends on anything but the code and the Python running it, so it is done once
per machine and kept:

- :func:`regex` is ``re.compile`` whose result survives the process: ``re`` compiles a pattern
  in Python (parse, then code generation) and hands the resulting code to ``_sre.compile``,
  which builds the pattern object in C in microseconds. The code is kept, and a later process
  hands it to ``_sre.compile`` directly. The pattern object is the one ``re.compile`` would
  have made (same code from the same compiler, keyed by the Python version); where the private
  API is missing or refuses, it is ``re.compile`` itself.
- :func:`plan` keeps one derived object (the screen's plan) pickled beside the regexes' code.

Both live in one file per (Python version, sources of :mod:`kenning.safety`) in the user's
cache folder (``KENNING_CACHE_DIR``, else ``$XDG_CACHE_HOME/kenning``, else
``~/.cache/kenning``): an edited rule or a new Python gets a new file, and a file is never
read for code it was not made from. The file is written atomically, checked with a SHA-256
digest when read and unpickled with only the classes a plan is made of allowed, so a damaged,
foreign or truncated file is ignored and rebuilt, never trusted. An unwritable cache folder
only costs the time: the screen computes what it needs, as before.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib
import io
import os
import pickle
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar

from kenning import fsutil
from kenning.safety import first_chars

__all__ = ["cache_file", "plan", "regex", "save", "stats"]

CACHE_ENV: Final = "KENNING_CACHE_DIR"
_MAGIC: Final = b"kenning-screen-cache 1\n"
_KEEP: Final = 4  # cache files kept per folder: other versions installed beside this one
_PACKAGE: Final = Path(__file__).resolve().parent

T = TypeVar("T")
# What _sre.compile takes: pattern, flags, code, groups, groupindex, indexgroup.
_Entry = tuple[str, int, list[int], int, dict[str, int], tuple[str | None, ...]]

try:  # the private half of ``re`` (untyped); without it regex() is re.compile
    _sre: Any = importlib.import_module("_sre")
    _compiler: Any = importlib.import_module("re._compiler")
    _parser: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - every CPython from 3.11 has them
    _sre = _compiler = _parser = None


def _fingerprint() -> str:
    """What the cached tables were made from: the Python and every source of the package."""
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    digest.update(str(getattr(_sre, "MAGIC", "")).encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def _folder() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "kenning"


class _Cache:
    """The loaded file: the regexes' code by (pattern, flags), and the plan's pickle."""

    def __init__(self) -> None:
        self.path = _folder() / f"screen-{_fingerprint()}.bin"
        self.regexes: dict[tuple[str, int], _Entry] = {}
        self.plan: bytes | None = None
        self.dirty = False
        self.counts = {"regex_hits": 0, "regex_misses": 0, "plan_hits": 0, "plan_misses": 0}
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except OSError:
            return
        body = raw[len(_MAGIC) + 32 :]
        if not raw.startswith(_MAGIC) or raw[len(_MAGIC) : len(_MAGIC) + 32] != (
            hashlib.sha256(body).digest()
        ):
            return  # damaged or not ours: rebuilt and rewritten on save()
        try:
            regexes, plan_bytes = _Unpickler(io.BytesIO(body)).load()
        except Exception:
            return
        if isinstance(regexes, dict) and isinstance(plan_bytes, bytes | None):
            self.regexes, self.plan = regexes, plan_bytes

    def save(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        body = pickle.dumps((self.regexes, self.plan), protocol=pickle.HIGHEST_PROTOCOL)
        data = _MAGIC + hashlib.sha256(body).digest() + body
        with contextlib.suppress(OSError):  # a read-only or full disk: no cache, same results
            fsutil.atomic_write(self.path, data)
            others = sorted(
                (p for p in self.path.parent.glob("screen-*.bin") if p != self.path),
                key=lambda p: p.stat().st_mtime_ns,
                reverse=True,
            )
            for old in others[_KEEP - 1 :]:
                old.unlink(missing_ok=True)


_cache: _Cache | None = None


def _get() -> _Cache:
    global _cache
    if _cache is None:
        _cache = _Cache()
        atexit.register(save)
    return _cache


def cache_file() -> Path:
    """The file this process reads and writes."""
    return _get().path


def stats() -> dict[str, int]:
    """How many regexes and plans came from the file (hits) or were made here (misses)."""
    return dict(_get().counts)


def save() -> None:
    """Write what this process added to the cache (also done at exit)."""
    if _cache is not None:
        _cache.save()


def regex(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, its code kept in the cache file."""
    flags = int(flags)
    cache = _get()
    key = (pattern, flags)
    entry = cache.regexes.get(key)
    if entry is not None:
        try:
            compiled: re.Pattern[str] = _sre.compile(*entry)
        except Exception:
            del cache.regexes[key]
        else:
            cache.counts["regex_hits"] += 1
            return compiled
    cache.counts["regex_misses"] += 1
    if _sre is None:  # pragma: no cover
        return re.compile(pattern, flags)
    try:
        entry = _code(pattern, flags)
        compiled = _sre.compile(*entry)
    except re.error:
        raise
    except Exception:
        return re.compile(pattern, flags)
    # Also under the flags the pattern ends up with (``re.UNICODE`` added for a str, inline
    # flags): a cached plan's regexes are pickled with those (:class:`_Pickler`).
    cache.regexes[key] = cache.regexes[pattern, entry[1]] = entry
    cache.dirty = True
    return compiled


def _code(pattern: str, flags: int) -> _Entry:
    """What ``re._compiler.compile`` hands ``_sre.compile`` (its last step, taken apart)."""
    # the same pattern, with a quick test before each long alternation (:mod:`.first_chars`)
    parsed = first_chars.guard(_parser.parse(pattern, flags))
    code = [int(op) for op in _compiler._code(parsed, flags)]  # opcodes are int subclasses
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, number in groupindex.items():
        indexgroup[number] = name
    return (
        pattern,
        flags | parsed.state.flags,
        code,
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def plan(build: Callable[[], T], kind: type[T]) -> T:
    """The cached object of type ``kind``, or ``build()``'s (then cached and saved)."""
    cache = _get()
    if cache.plan is not None:
        try:
            found = _Unpickler(io.BytesIO(cache.plan)).load()
        except Exception:
            found = None
        if isinstance(found, kind):
            cache.counts["plan_hits"] += 1
            return found
    cache.counts["plan_misses"] += 1
    made = build()
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(made)
    cache.plan = buffer.getvalue()
    cache.dirty = True
    save()
    return made


class _Pickler(pickle.Pickler):
    """Pickles a compiled regex as a call to :func:`regex` (its code is in the cache)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, re.Pattern):
            return regex, (obj.pattern, obj.flags)
        return NotImplemented


# What a cached file may build when unpickled: the screen's own classes, numpy arrays, the
# built-in containers, and regexes through regex(). Anything else means the file is not one
# this module wrote, and it is ignored.
_ALLOWED_MODULES: Final = ("kenning.safety.",)
_ALLOWED: Final = {
    ("builtins", "frozenset"),
    ("builtins", "set"),
    ("builtins", "slice"),
    ("copyreg", "_reconstructor"),
    ("builtins", "object"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED or module.startswith(_ALLOWED_MODULES):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a screen cache")

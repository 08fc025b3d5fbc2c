"""Skills (layer 3): procedural memory — how to do a class of task — with a governed lifecycle.

A skill is a folder ``skills/<name>/`` with ``SKILL.md`` (YAML front matter +
Markdown body) and optional ``references/ templates/ scripts/ assets/``. The
modules, one job each:

- :mod:`.model` front matter and name rules; :mod:`.validate` folder rules;
  :mod:`.scan` the threat scan; :mod:`.files` folders on disk;
- :mod:`.state` provenance and lifecycle outside the author's text;
- :mod:`.catalog` finding skills (home + bundled); :mod:`.changes` a change
  as a value; :mod:`.library` the lifecycle (every change checked, atomic,
  committed); :mod:`.guards` rules for automated writers; :mod:`.proposals`
  changes waiting for review; :mod:`.curator` stale/archived by idle time;
- :mod:`.rank` relevance; :mod:`.index` the prompt block; :mod:`.tool` the
  model's ``skill_view`` / ``skills_search`` / ``skill_manage``.

Usage::

    library = SkillLibrary.for_home(home)
    block = build_index(library, task="fix the flaky CI test").text
    view, search, manage = session_skill_tools(library, session_id)
"""

from kenning.skills.catalog import SkillInfo
from kenning.skills.changes import Change
from kenning.skills.curator import CurationReport, Curator, Transition
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.guards import USER, Writer
from kenning.skills.index import SkillsIndex, build_index, estimate_tokens, render_index
from kenning.skills.library import ChangeResult, SkillLibrary, SkillView
from kenning.skills.model import SkillMeta, compose_skill_md, parse_skill_md
from kenning.skills.tool import (
    SkillManageTool,
    SkillsSearchTool,
    SkillViewTool,
    session_skill_tools,
)

__all__ = [
    "USER",
    "Change",
    "ChangeResult",
    "CurationReport",
    "Curator",
    "ErrorKind",
    "SkillError",
    "SkillInfo",
    "SkillLibrary",
    "SkillManageTool",
    "SkillMeta",
    "SkillView",
    "SkillViewTool",
    "SkillsIndex",
    "SkillsSearchTool",
    "Transition",
    "Writer",
    "build_index",
    "compose_skill_md",
    "estimate_tokens",
    "parse_skill_md",
    "render_index",
    "session_skill_tools",
]

"""Kenning as the learning loop of agents people already use (``kenning hosts …``).

One module per host: ``claude_code`` (install, uninstall, status, refresh)
with its hook worker ``claude_code_sync``. What every host shares:
``files`` (reversible, atomic changes to a host's files, listed in a
manifest), ``skills_export`` (agent-made skills into the host's skills
folder) and ``hook_entry`` (the stdlib-only command a hook runs).
"""

from __future__ import annotations

HOSTS = ("claude-code",)

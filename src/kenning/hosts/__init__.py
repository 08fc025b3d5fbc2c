"""Kenning as the learning loop of agents people already use (``kenning hosts …``).

One module per host — ``claude_code``, ``gemini_cli`` — says where the host
reads each piece and how its transcripts become messages. What every host
shares: ``install`` (install, uninstall, status, refresh), ``sync`` (the hook
worker: archive, review, export), ``files`` (reversible, atomic changes to a
host's files, listed in a manifest), ``skills_export`` (agent-made skills into
the host's skills folder) and ``hook_entry`` (the stdlib-only command a hook
runs).
"""

from __future__ import annotations

HOSTS = ("claude-code", "gemini-cli")

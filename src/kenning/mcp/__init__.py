"""``kenning mcp``: Kenning's memory for any agent host, over the Model Context Protocol.

Claude Code, Cursor, Codex, Zed or a host of one's own connect to the same
home ``kenning chat`` uses — hot memory, archive, journal and skills — at the
same time, safely. The modules, one job each:

- :mod:`.catalog` what a host model is told about the tools: descriptions, hints
  (the tools are the agent's own `Tool` objects);
- :mod:`.service` the core: calls in, results written for the model out,
  never an exception; resources and the memory guide;
- :mod:`.recorder` one ``mcp`` archive session per client connection;
- :mod:`.readonly` the read-only views behind ``--read-only``;
- :mod:`.server` the protocol handlers and the stdio / HTTP transports;
- :mod:`.wire` what arrives, made parseable first (invalid Unicode repaired);
- :mod:`.hosts` ``kenning mcp config``'s snippets for each host;
- :mod:`.client` launching a server and driving it with the SDK's client, as
  a host does (the benchmark and the tests).

Usage::

    service = KenningService(Home.open(), read_only=False)
    anyio.run(serve_stdio, service)
"""

from kenning.mcp.recorder import Peer
from kenning.mcp.service import KenningService, Outcome

__all__ = ["KenningService", "Outcome", "Peer"]

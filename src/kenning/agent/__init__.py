"""The agent loop (``loop``), its events, hooks and subagents (``delegate``).

The loop runs on the transcript and the context engine (``kenning.context``)
and the system prompt (``kenning.prompt.system``); ``kenning.runtime`` is the
composition root that wires a session; the public way in is ``kenning.Agent``.
"""

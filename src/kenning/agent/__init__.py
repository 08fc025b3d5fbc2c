"""The agent loop (``loop``), its events, hooks, transcript and system prompt.

``factory.open_session`` is the composition root that wires a session; the
public way in is ``kenning.Agent``.
"""

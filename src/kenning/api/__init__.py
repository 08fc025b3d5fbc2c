"""Kenning's public Python API: ``Home``, ``Agent`` and the values they return.

Import it from ``kenning`` (``from kenning import Agent, Home``): the names in
``kenning.__all__`` and their documented methods are the public, stable
surface (README, "Use Kenning from Python"). The modules here are where they
live — ``home`` (``Home``), ``facades`` (``home.memory``, ``.journal``,
``.skills``, ``.sessions``), ``agent`` (``Agent``), ``results`` (``Hit``,
``Hits``, ``RunResult``), ``errors`` — and are not imported here, so that
``import kenning`` loads the agent loop only when ``Agent`` is first used.
"""

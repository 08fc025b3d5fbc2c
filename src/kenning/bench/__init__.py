"""Benchmarks run as commands (``kenning bench …``), each reporting a baseline from the same run."""

"""Zeroed arrays for the search's large, long-lived matrices, on ordinary pages.

NumPy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``)
for every array of 4 MB or more. Where the kernel's THP defrag setting is
``madvise`` (the usual default), each 2 MB page is then found by compacting
memory at the moment it is first written, and on a machine whose memory is
fragmented (a long-running host, a virtual machine) that stalls: here,
first-writing 1.5 GB took 7.9 s with huge pages against 0.6 s without, which
was most of the first search's load of a 1M-message archive's vectors. The
matrices are scanned front to back, where huge pages gained nothing measurable
per query (``kenning bench scale``), so they are mapped anonymously instead,
which the kernel backs with ordinary pages unless THP is set to ``always``.
Small arrays stay NumPy's own.
"""

from __future__ import annotations

import mmap

import numpy as np
import numpy.typing as npt

_MAPPED_FROM = 4 << 20  # bytes: where NumPy's own allocations start asking for huge pages


def zeros(rows: int, cols: int, dtype: npt.DTypeLike) -> np.ndarray:
    """A writable, zero-filled ``(rows, cols)`` array; its memory is unmapped with it."""
    kind = np.dtype(dtype)
    size = rows * cols * kind.itemsize
    if size < _MAPPED_FROM:
        return np.zeros((rows, cols), dtype=kind)
    return np.frombuffer(mmap.mmap(-1, size), dtype=kind).reshape(rows, cols)

"""The search's large matrices are on ordinary pages, not NumPy's huge-page advice
(``search.pages``: first writes stalled on memory compaction where the kernel's THP
defrag is ``madvise``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kenning.search import ann, pages

SMAPS = Path("/proc/self/smaps")


def _advised_huge(array: np.ndarray) -> bool:
    """Whether the mapping holding ``array``'s data carries MADV_HUGEPAGE ("hg")."""
    address = array.ctypes.data
    inside = False
    for line in SMAPS.read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            lo, hi = (int(part, 16) for part in head.split("-"))
            inside = lo <= address < hi
        elif inside and head == "VmFlags:":
            return "hg" in line.split()[1:]
    raise AssertionError("no mapping holds the array")


def test_zeros_is_a_writable_zeroed_array_of_the_shape_and_type_asked() -> None:
    for rows in (0, 3, 20_000):
        got = pages.zeros(rows, 96, np.float32)
        assert got.shape == (rows, 96) and got.dtype == np.float32
        assert got.flags.writeable and not got.any()
        got[-1:] = 1.5
        assert float(got.sum()) == (1.5 * 96 if rows else 0.0)


@pytest.mark.skipif(not SMAPS.exists(), reason="needs Linux's /proc/self/smaps")
def test_big_matrices_are_not_advised_onto_huge_pages() -> None:
    """Where THP is off or NumPy's advice is disabled nothing is advised anyway; on
    kernels where NumPy advises (``madvise`` mode, 4.6+), np.zeros would fail this."""
    mapped = pages.zeros(20_000, 96, np.float32)
    mapped[:] = 1.0
    assert not _advised_huge(mapped)
    # the projection the prefilter keeps, and the rows it projects
    matrix = np.random.default_rng(3).standard_normal((30_000, 96)).astype(np.float32)
    prefilter = ann.ProjectedPrefilter(dims=64, fit_sample=4_096)  # 7.7 MB
    prefilter.sync(matrix, generation=0)
    assert not _advised_huge(prefilter._proj)

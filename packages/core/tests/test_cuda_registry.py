"""The CUDA registry's completeness: every declared op has a CUDA kernel but the few listed in
docs/cuda.md, and every launcher hands `ptx_check` its kernels."""

from __future__ import annotations

import importlib

import pytest

import ember.core as E
from ember.core.cuda import registry

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

# ops whose CUDA kernels are not written yet (docs/cuda.md, "Kernels")
KNOWN_MISSING: set[str] = set()


def test_every_op_has_a_cuda_kernel_but_the_known_missing_ones():
    E.zeros(1, device="cuda")  # the first CUDA tensor registers the kernels
    missing = set(registry.missing_cuda_kernels())
    assert missing <= KNOWN_MISSING, f"ops without a CUDA kernel: {sorted(missing - KNOWN_MISSING)}"


@pytest.mark.parametrize("module", registry.LAUNCHERS)
def test_every_launcher_lists_its_kernels_for_the_ptx_check(module):
    cases = list(importlib.import_module(f"ember.core.cuda.{module}").ptx_cases())
    for label, fn, sig in cases:
        assert isinstance(label, str) and callable(fn) and isinstance(sig, tuple)
    assert len({label for label, _, _ in cases}) == len(cases), "duplicate kernel labels"

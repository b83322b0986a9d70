"""Sizes whose product overflows memory or the address space: a clean RuntimeError with PyTorch's
wording (its CPU allocator's, or "Storage size calculation overflowed"), never numpy's MemoryError
or ValueError, never a crash (docs/robustness.md, "Sizes that overflow memory")."""

from __future__ import annotations

import re

import pytest

import ember.core as E

ALLOC = "DefaultCPUAllocator: can't allocate memory"
OVERFLOW = "Storage size calculation overflowed with sizes="

CASES = [
    ("empty", lambda: E.empty(2**40), ALLOC + ": you tried to allocate 4398046511104 bytes."),
    ("zeros", lambda: E.zeros(2**20, 2**20), ALLOC + ": you tried to allocate 4398046511104 bytes."),
    ("ones float64", lambda: E.ones(2**40, dtype=E.float64), ALLOC + ": you tried to allocate 8796093022208 bytes."),
    ("full", lambda: E.full((2**40,), 1.5), ALLOC),
    ("randn", lambda: E.randn(2**40), ALLOC),
    ("rand", lambda: E.rand(2**20, 2**20), ALLOC),
    ("randint", lambda: E.randint(0, 5, (2**40,)), ALLOC),
    ("arange", lambda: E.arange(2**40), ALLOC + ": you tried to allocate 8796093022208 bytes."),
    ("linspace", lambda: E.linspace(0, 1, 2**40), ALLOC),
    ("eye", lambda: E.eye(2**20), ALLOC),
    ("new_zeros", lambda: E.zeros(2).new_zeros(2**40), ALLOC),
    ("expand then contiguous", lambda: E.zeros(3).expand(2**40, 3).contiguous(), ALLOC),
    ("expand then clone", lambda: E.zeros(3).expand(2**40, 3).clone(), ALLOC),
    ("expand then add", lambda: E.zeros(3).expand(2**40, 3) + 1, ALLOC),
    ("repeat", lambda: E.tensor([1.0]).repeat(2**40), ALLOC),
    ("bincount of a huge value", lambda: E.bincount(E.tensor([2**40])), ALLOC),
    ("empty_strided", lambda: E.empty_strided((2**40,), (1,)), ALLOC),
    ("zeros past int64 bytes", lambda: E.zeros(2**62, dtype=E.float32), OVERFLOW + "[4611686018427387904]"),
    ("empty of a product past int64", lambda: E.empty(2**31, 2**31, 4), OVERFLOW + "[2147483648, 2147483648, 4]"),
    ("zeros of 2**63", lambda: E.zeros(2**63), OVERFLOW),
    ("arange past int64", lambda: E.arange(0, 1e30, 1), "invalid size, possible overflow?"),
    ("arange to inf", lambda: E.arange(0, float("inf")), "unsupported range: 0 -> inf"),
    ("negative size", lambda: E.ones(2, -1), "Trying to create tensor with negative dimension -1: [2, -1]"),
    ("negative size of zeros", lambda: E.zeros(2, -1), "zeros: Dimension size must be non-negative."),
    ("reshape to more elements", lambda: E.zeros(1).reshape(2**40),
     "shape '[1099511627776]' is invalid for input of size 1"),
    ("view with a negative size", lambda: E.zeros(4).view(-2, 2), "invalid shape dimension -2"),
]


@pytest.mark.parametrize("fn,msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_huge_or_negative_size_raises_a_clean_runtime_error(fn, msg):
    with pytest.raises(RuntimeError, match=re.escape(msg)) as info:
        fn()
    assert not isinstance(info.value, MemoryError | ValueError)


def test_huge_expanded_view_is_still_free():
    """Only materialising a huge view fails: the stride-0 view itself costs nothing."""
    v = E.zeros(3).expand(2**40, 3)
    assert v.shape == (2**40, 3) and v[2**40 - 1].tolist() == [0.0, 0.0, 0.0]

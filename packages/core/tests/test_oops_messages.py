"""Users' tensor mistakes (tests/api_programs/oops_*.py): PyTorch 2.13's exception type and message, hard-coded."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E


@pytest.mark.parametrize("value, name", [("x", "str"), (None, "NoneType"), ([1, 2], "list"),
                                         (np.array(2.0), "numpy.ndarray"), (E.ones(2), "Tensor"),
                                         (E.ones(1), "Tensor")])
def test_full_refuses_a_fill_value_that_is_no_number(value, name):
    msg = f"full(): argument 'fill_value' (position 2) must be Number, not {name}"
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        E.full((2,), value)


@pytest.mark.parametrize("value, dtype", [(np.float32(2), E.float32), (np.bool_(True), E.float32),
                                          (np.int64(3), E.int64), (E.tensor(2), E.int64), (1 + 2j, E.complex64)])
def test_full_takes_numbers_and_0d_tensors(value, dtype):
    assert E.full((2,), value).dtype is dtype

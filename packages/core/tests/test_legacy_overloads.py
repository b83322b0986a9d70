"""PyTorch's deprecated positional-alpha overloads that 0.4-era code still calls (`p.data.add_(-lr, grad)`):
the values of `add`/`sub` with `alpha` before `other`, and the one UserWarning per process that PyTorch gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import arith


@pytest.fixture
def fresh_warning(monkeypatch):
    monkeypatch.setattr(arith, "_legacy_warned", [False])


def test_legacy_alpha_values(fresh_warning):
    x, y = E.ones(3), E.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert E.add(x, 2, y).tolist() == [1.0, 3.0, 5.0]
        assert x.sub(2, y).tolist() == [1.0, -1.0, -3.0]
        assert x.add(2, 3).tolist() == [7.0, 7.0, 7.0]  # the third argument may be a number too
        z = x.clone()
        assert z.sub_(2, y) is z and z.tolist() == [1.0, -1.0, -3.0]
        out = E.empty(3)
        E.add(x, 2, y, out=out)
        np.testing.assert_array_equal(out.numpy(), [1.0, 3.0, 5.0])


def test_legacy_alpha_warns_once_per_process(fresh_warning):
    x, y = E.ones(3), E.arange(3.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x.clone().add_(-0.1, y)
        x.sub(2, y)
        E.add(x, 2, y)
    assert len(w) == 1 and w[0].category is UserWarning
    assert str(w[0].message).splitlines() == [
        "This overload of add_ is deprecated:", "\tadd_(Number alpha, Tensor other)",
        "Consider using one of the following signatures instead:", "\tadd_(Tensor other, *, Number alpha = 1)"]


def test_legacy_alpha_refusals(fresh_warning):
    x, y = E.ones(3), E.arange(3.0)
    with pytest.raises(TypeError, match="add\\(\\) received an invalid combination of arguments"):
        E.add(x, y, y)  # alpha must be a number
    with pytest.raises(TypeError, match="add_\\(\\) received an invalid combination of arguments"):
        x.add_(2, y, alpha=3)

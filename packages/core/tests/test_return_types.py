"""Named results (`return_types.max`, `sort`, `slogdet`, ...) print as PyTorch's structseqs: one field a line."""

import numpy as np
import pytest

import ember.core as E
from ember.core import dtypes


def test_max_dim_prints_one_field_a_line():
    r = E.tensor([[1.0, 2.0], [4.0, 3.0]]).max(dim=1)
    assert repr(r) == str(r) == ("ember.return_types.max(\nvalues=tensor([2., 4.]),\nindices=tensor([1, 0]))")
    assert r.values.tolist() == [2.0, 4.0] and tuple(r) == (r.values, r.indices)


def test_names_follow_the_repr_namespace():
    previous = dtypes.set_repr_namespace("torch")
    try:
        assert repr(E.linalg.eig(E.eye(2))).startswith("torch.return_types.linalg_eig(\neigenvalues=")
        assert repr(E.frexp(E.ones(1))).splitlines()[0] == "torch.return_types.frexp("
    finally:
        dtypes.set_repr_namespace(previous)


@pytest.mark.torch
def test_reprs_are_pytorchs():
    torch = pytest.importorskip("torch")
    a = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 1.5]], np.float32)
    calls = [lambda m, x: m.max(x, 1), lambda m, x: m.sort(x, dim=1, descending=True), lambda m, x: x.topk(2),
             lambda m, x: m.aminmax(x), lambda m, x: m.median(x, 0), lambda m, x: m.histogram(x, 3),
             lambda m, x: m.linalg.slogdet(x[:, :2])]
    previous = dtypes.set_repr_namespace("torch")
    try:
        for call in calls:
            assert repr(call(E, E.tensor(a))) == repr(call(torch, torch.tensor(a)))
    finally:
        dtypes.set_repr_namespace(previous)

"""PyTorch's deprecated and removed entry points that 0.4-era code still calls: `add`/`sub` with `alpha` before
`other` (`p.data.add_(-lr, grad)`) and their one UserWarning per process; the linear algebra removed in 1.9
(`torch.lstsq`, `torch.solve`, ...), still defined, raising PyTorch's migration message."""

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
        "Consider using one of the following signatures instead:", "\tadd_(Tensor other, *, Number alpha = 1) "
        "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)"]


def test_legacy_alpha_refusals(fresh_warning):
    x, y = E.ones(3), E.arange(3.0)
    with pytest.raises(TypeError, match="add\\(\\) received an invalid combination of arguments"):
        E.add(x, y, y)  # alpha must be a number
    with pytest.raises(TypeError, match="add_\\(\\) received an invalid combination of arguments"):
        x.add_(2, y, alpha=3)


@pytest.mark.parametrize("call, start", [
    (lambda A: E.lstsq(A, A), "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"),
    (lambda A: A.lstsq(A), "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"),
    (lambda A: E.solve(A, A), "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "),
    (lambda A: A.solve(A), "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "),
    (lambda A: E.eig(A, True), "`torch.linalg.eig` returns complex tensors"),
    (lambda A: A.symeig(eigenvectors=True), "The default behavior has changed from using the upper"),
    (lambda A: E.matrix_rank(A), "\nPlease use the `torch.linalg.matrix_rank` function instead. "),
])
def test_removed_linalg_raises_pytorchs_message(call, start):
    with pytest.raises(RuntimeError) as info:
        call(E.eye(2))
    msg = str(info.value)
    assert msg.startswith("This function was deprecated since version 1.9 and is now removed.")
    assert start in msg


def test_legacy_value_of_addcmul_addcdiv(fresh_warning):
    a, b, c = E.arange(1.0, 4.0), E.tensor([2.0, 2.0, 2.0]), E.tensor([4.0, 1.0, 2.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert E.addcmul(a, 0.5, b, c).tolist() == [5.0, 3.0, 5.0]
        assert a.clone().addcdiv_(-0.5, b, c).tolist() == [0.75, 1.0, 2.5]
        assert a.addcdiv(2, b, c).tolist() == [2.0, 6.0, 5.0]
    assert len(w) == 1 and str(w[0].message).splitlines() == [
        "This overload of addcmul is deprecated:",
        "\taddcmul(Tensor input, Number value, Tensor tensor1, Tensor tensor2, *, Tensor out = None)",
        "Consider using one of the following signatures instead:",
        "\taddcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Number value = 1, Tensor out = None) (Triggered "
        "internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)"]
    with pytest.raises(TypeError, match="addcmul_\\(\\) received an invalid combination of arguments"):
        a.clone().addcmul_(0.5, b, c, value=2)

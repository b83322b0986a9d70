"""Bad input to the losses and recurrent cells: PyTorch's exception type and message (PyTorch 2.13's,
hard-coded), on the CPU and on CUDA alike (the core families are in core's test_error_inputs.py)."""

from __future__ import annotations

import math
import re

import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F


def _r(*shape):
    return torch.arange(math.prod(shape), dtype=torch.float32).reshape(*shape).sin()


def _c():
    return torch.complex(_r(2, 3), _r(2, 3).cos())


# (label, fn(m) -> the call, exception type, PyTorch's message); `m` puts a tensor on the device
ERRORS = [
    ("huber_loss delta 0", lambda m: F.huber_loss(m(_r(3)), m(_r(3)), delta=0.0),
     RuntimeError, "huber_loss does not support non-positive values for delta."),
    ("huber_loss negative delta", lambda m: F.huber_loss(m(_r(3)), m(_r(3)), delta=-1.0),
     RuntimeError, "huber_loss does not support non-positive values for delta."),
    ("binary_cross_entropy of NaN", lambda m: F.binary_cross_entropy(m(torch.tensor([math.nan])),
                                                                      m(torch.tensor([0.5]))),
     RuntimeError, "all elements of input should be between 0 and 1"),
    ("nll_loss of a 1-D input with a 2-element target",
     lambda m: F.nll_loss(m(_r(3)), m(torch.tensor([1, 2]))),
     ValueError, "For 1D input, 1D target must have size 1, but got target size: 2"),
    ("cross_entropy with class indices of the input's shape",
     lambda m: F.cross_entropy(m(_r(2, 3)), m(torch.zeros(2, 3, dtype=torch.int64))),
     RuntimeError, "Expected floating point type for target with class probabilities, got Long"),
    ("mse_loss of another shape", lambda m: F.mse_loss(m(_r(3)), m(_r(4))),
     RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    ("cosine_similarity of another size", lambda m: F.cosine_similarity(m(_r(2, 3)), m(_r(2, 4))),
     RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("F.pad of odd length", lambda m: F.pad(m(_r(1, 1, 4)), (1,)),
     RuntimeError, "Padding length must be divisible by 2"),
    ("RNNCell hidden of another batch", lambda m: m(nn.RNNCell(3, 4))(m(_r(2, 3)), m(_r(3, 4))),
     RuntimeError, "Input batch size 2 doesn't match hidden0 batch size 3"),
    ("RNNCell hidden of another size", lambda m: m(nn.RNNCell(3, 4))(m(_r(2, 3)), m(_r(2, 5))),
     RuntimeError, "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    ("RNNCell unbatched input with a 2-D hidden", lambda m: m(nn.RNNCell(3, 4))(m(_r(3)), m(_r(1, 4))),
     RuntimeError, "hidden0 has inconsistent hidden_size: got 1, expected 4"),
    ("RNNCell 3-D hidden", lambda m: m(nn.RNNCell(3, 4))(m(_r(2, 3)), m(_r(1, 2, 4))),
     ValueError, "RNNCell: Expected hidden to be 1D or 2D, got 3D instead"),
    ("LSTMCell cell state of another batch",
     lambda m: m(nn.LSTMCell(3, 4))(m(_r(2, 3)), (m(_r(2, 4)), m(_r(3, 4)))),
     RuntimeError, "Input batch size 2 doesn't match hidden1 batch size 3"),
    ("LSTMCell hidden of another size", lambda m: m(nn.LSTMCell(3, 4))(m(_r(2, 3)), (m(_r(2, 5)), m(_r(2, 4)))),
     RuntimeError, "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    ("LSTMCell given a bare tensor state", lambda m: m(nn.LSTMCell(3, 4))(m(_r(2, 3)), m(_r(2, 4))),
     TypeError, "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor"),
    ("LSTMCell 3-D cell state", lambda m: m(nn.LSTMCell(3, 4))(m(_r(2, 5)), (m(_r(2, 4)), m(_r(1, 2, 4)))),
     ValueError, "LSTMCell: Expected hx[1] to be 1D or 2D, got 3D instead"),
    ("GRUCell 3-D hidden before the input size", lambda m: m(nn.GRUCell(3, 4))(m(_r(2, 5)), m(_r(1, 2, 4))),
     ValueError, "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
    ("GRUCell unbatched input with a batched hidden", lambda m: m(nn.GRUCell(3, 4))(m(_r(3)), m(_r(2, 4))),
     RuntimeError, "hidden0 has inconsistent hidden_size: got 2, expected 4"),
    ("multi_margin_loss target past the classes",
     lambda m: F.multi_margin_loss(m(_r(2, 3)), m(torch.tensor([0, 3]))), RuntimeError, "target out of range"),
    ("nll_loss float target of another batch size (the size is checked first)",
     lambda m: F.nll_loss(m(_r(2, 3)), m(_r(3))),
     ValueError, "Expected input batch_size (2) to match target batch_size (3)."),
    ("nll_loss float target", lambda m: F.nll_loss(m(_r(2, 3)), m(_r(2))),
     RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    ("cross_entropy float labels (class indices of another shape)", lambda m: F.cross_entropy(m(_r(2, 3)), m(_r(2))),
     RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    ("cross_entropy float labels, unbatched", lambda m: F.cross_entropy(m(_r(3)), m(torch.tensor(1.0))),
     RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    ("cross_entropy float labels of another batch size", lambda m: F.cross_entropy(m(_r(2, 3)), m(_r(3))),
     ValueError, "Expected input batch_size (2) to match target batch_size (3)."),
    ("nll_loss 2-D target", lambda m: F.nll_loss(m(_r(2, 3)), m(torch.zeros(2, 3, dtype=torch.long))),
     RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    ("cross_entropy int32 target of another batch size",
     lambda m: F.cross_entropy(m(_r(2, 3)), m(torch.zeros(3, dtype=torch.int32))),
     ValueError, "Expected input batch_size (2) to match target batch_size (3)."),
    ("mse_loss of complex tensors", lambda m: F.mse_loss(m(_c()), m(_c())),
     NotImplementedError, "\"mse_cpu\" not implemented for 'ComplexFloat'"),
    ("smooth_l1_loss of complex tensors", lambda m: F.smooth_l1_loss(m(_c()), m(_c())),
     NotImplementedError, "\"smooth_l1_cpu\" not implemented for 'ComplexFloat'"),
    ("huber_loss of complex tensors", lambda m: F.huber_loss(m(_c()), m(_c())),
     NotImplementedError, "\"huber_cpu\" not implemented for 'ComplexFloat'"),
    ("binary_cross_entropy of complex tensors", lambda m: F.binary_cross_entropy(m(_c()), m(_c())),
     NotImplementedError, "\"binary_cross_entropy\" not implemented for 'ComplexFloat'"),
    ("kl_div of complex tensors", lambda m: F.kl_div(m(_c()), m(_c())),
     RuntimeError, "kl_div: Complex inputs not supported."),
    ("cosine_similarity of complex tensors", lambda m: F.cosine_similarity(m(_c()), m(_c())),
     RuntimeError, "expected common dtype to be floating point, yet common dtype is ComplexFloat"),
    ("multi_margin_loss negative target",
     lambda m: F.multi_margin_loss(m(_r(2, 3)), m(torch.tensor([0, -1]))), RuntimeError, "target out of range"),
]


def _expect(fn, exc, msg, move):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(move)


@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_pytorchs_error_on_the_cpu(fn, exc, msg):
    _expect(fn, exc, msg, lambda t: t)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_the_same_error_on_cuda(fn, exc, msg):
    _expect(fn, exc, msg, lambda t: t.to("cuda"))


def test_unbatched_losses_take_a_one_element_target():
    """PyTorch reads a `(1,)` class-index target of a `(C,)` input as its 0-dim target."""
    x = torch.tensor([0.1, 0.5, 0.2])
    for reduction in ("mean", "sum", "none"):
        want_nll, want_ce = -0.5, math.log(sum(math.exp(v) for v in (0.1, 0.5, 0.2))) - 0.5
        got_nll = F.nll_loss(x, torch.tensor([1]), reduction=reduction)
        got_ce = F.cross_entropy(x, torch.tensor([1]), reduction=reduction)
        assert got_nll.shape == () and got_ce.shape == ()
        assert abs(got_nll.item() - want_nll) < 1e-6 and abs(got_ce.item() - want_ce) < 1e-6


def test_recurrent_cells_accept_their_documented_shapes():
    """The checks refuse only what PyTorch refuses: unbatched and batched states of the right size."""
    h, c = nn.LSTMCell(3, 4)(_r(3), (_r(4), _r(4)))
    assert h.shape == (4,) and c.shape == (4,)
    assert nn.GRUCell(3, 4)(_r(2, 3), _r(2, 4)).shape == (2, 4)
    assert nn.RNNCell(3, 4)(_r(3)).shape == (4,)


@pytest.mark.torch
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_the_table_agrees_with_pytorch(fn, exc, msg):
    """The same calls with PyTorch's modules raise the hard-coded type and message."""
    pt = pytest.importorskip("torch")
    import numpy as np

    def to_torch(t):
        if isinstance(t, nn.Module):
            return {nn.RNNCell: pt.nn.RNNCell, nn.LSTMCell: pt.nn.LSTMCell, nn.GRUCell: pt.nn.GRUCell}[type(t)](
                t.input_size, t.hidden_size)
        return pt.from_numpy(np.ascontiguousarray(t.detach().numpy()))

    global F
    saved = F
    F = pt.nn.functional  # the table's F.* calls go to PyTorch; `m` converts tensors and cells
    try:
        with pytest.raises(exc, match=re.escape(msg)):
            fn(to_torch)
    finally:
        F = saved

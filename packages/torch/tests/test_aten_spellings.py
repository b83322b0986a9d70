"""torch.* spellings of functional ops with ATen's signatures (integer reductions, positional flags),
eager torch.cond / torch.while_loop, and the long tail reachable under PyTorch's paths."""

import math

import numpy as np
import pytest

import ember.torch as torch

A = torch.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]])
B = torch.tensor([[0.1, 0.4, -0.5], [-1.0, 0.3, 0.2]])
T = torch.tensor([1.0, -1.0])


def test_integer_reductions_map_to_the_functional_ones():
    F = torch.nn.functional
    assert torch.kl_div(A, B).shape == (2, 3)
    assert math.isclose(torch.kl_div(A, B, 2, log_target=True).item(),
                        F.kl_div(A, B, reduction="sum", log_target=True).item(), rel_tol=1e-6)
    assert math.isclose(torch.margin_ranking_loss(A[:, 0], B[:, 0], T, 0.1, 2).item(), 2.6, rel_tol=1e-6)
    assert torch.hinge_embedding_loss(A, torch.ones(2, 3)).shape == (2, 3)
    assert math.isclose(torch.cosine_embedding_loss(A, B, T, 0.0, 1).item(),
                        F.cosine_embedding_loss(A, B, T).item(), rel_tol=1e-6)
    assert math.isclose(torch.poisson_nll_loss(A, B.abs(), True, False, 1e-8, 1).item(),
                        F.poisson_nll_loss(A, B.abs()).item(), rel_tol=1e-6)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        torch.kl_div(A, B, 3)


def test_pad_pool_and_inplace_spellings():
    assert torch.constant_pad_nd(A, (1, 1), 9.0)[:, 0].tolist() == [9.0, 9.0]
    out, idx = torch.max_pool1d_with_indices(A.unsqueeze(0), 2)
    assert np.allclose(out.tolist(), [[[0.2], [1.5]]]) and idx.tolist() == [[[0], [0]]]
    x = A.clone()
    assert torch.threshold_(x, 0.3, -9.0) is x and x.tolist()[0] == [-9.0, -9.0, 0.5]
    assert np.allclose(torch.cosine_similarity(A, B).tolist(), [-0.8559, -0.8668], atol=1e-4)


def test_cond_and_while_loop_run_eagerly():
    one = torch.tensor(1.0)
    assert torch.cond(torch.tensor(True), lambda x: x + 1, lambda x: x - 1, (one,)).item() == 2.0
    assert torch.cond(False, lambda x: x + 1, lambda x: x - 1, (one,)).item() == 0.0
    with pytest.raises(RuntimeError, match="single-element tensor"):
        torch.cond(torch.tensor([True, False]), lambda: 0, lambda: 1)
    i, s = torch.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (torch.tensor(0), torch.tensor(1.0)))
    assert i.item() == 5 and s.item() == 32.0


def test_long_tail_is_reachable_under_pytorchs_paths():
    for name in ("logaddexp", "nan_to_num", "bitwise_left_shift", "hann_window", "trapezoid", "broadcast_shapes",
                 "cholesky_solve", "lu_unpack", "matrix_exp", "uint16", "float8_e4m3fn", "exp_", "frexp",
                 "histogram", "gradient", "strided"):
        assert hasattr(torch, name), name
    for name in ("solve_triangular", "lu_factor", "lstsq", "matrix_exp", "vander", "householder_product",
                 "cholesky_ex", "inv_ex", "solve_ex", "cond", "tensorinv", "tensorsolve", "diagonal"):
        assert hasattr(torch.linalg, name), name
    assert (torch.tensor([1, 2]) << 1).tolist() == [2, 4]


@pytest.mark.torch
def test_against_pytorch():
    real = pytest.importorskip("torch")
    a, b = real.tensor(A.tolist()), real.tensor(B.tolist())
    for fn in ("kl_div", "hinge_embedding_loss"):
        mine = getattr(torch, fn)(A, B.abs() if fn == "kl_div" else torch.ones(2, 3))
        theirs = getattr(real, fn)(a, b.abs() if fn == "kl_div" else real.ones(2, 3))
        assert np.allclose(mine.tolist(), theirs.tolist(), atol=1e-6)
    assert np.allclose(torch.logaddexp(A, B).tolist(), real.logaddexp(a, b).tolist(), atol=1e-6)
    x = np.random.default_rng(0).standard_normal((4, 4))
    P, L, U = torch.linalg.lu(torch.tensor(x))
    P2, L2, U2 = real.linalg.lu(real.tensor(x))
    assert np.allclose(L.tolist(), L2.tolist()) and np.allclose(U.tolist(), U2.tolist())


def test_to_dlpack_and_get_device_module():
    assert type(torch.to_dlpack(torch.ones(2))).__name__ == "PyCapsule"
    assert torch.get_device_module("cpu") is torch.cpu
    with pytest.raises(RuntimeError, match="does not have a corresponding module"):
        torch.get_device_module("mps")


def test_rnn_cells_match_the_modules():
    torch.manual_seed(0)
    x, h, c = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
    lstm = torch.nn.LSTMCell(3, 4)
    hy, cy = torch.lstm_cell(x, (h, c), lstm.weight_ih, lstm.weight_hh, lstm.bias_ih, lstm.bias_hh)
    ref_h, ref_c = lstm(x, (h, c))
    assert torch.allclose(hy, ref_h, atol=1e-6) and torch.allclose(cy, ref_c, atol=1e-6)
    gru = torch.nn.GRUCell(3, 4)
    assert torch.allclose(torch.gru_cell(x, h, gru.weight_ih, gru.weight_hh, gru.bias_ih, gru.bias_hh), gru(x, h),
                          atol=1e-6)
    rnn = torch.nn.RNNCell(3, 4)
    assert torch.allclose(torch.rnn_tanh_cell(x, h, rnn.weight_ih, rnn.weight_hh, rnn.bias_ih, rnn.bias_hh),
                          rnn(x, h), atol=1e-6)
    relu = torch.nn.RNNCell(3, 4, nonlinearity="relu")
    assert torch.allclose(torch.rnn_relu_cell(x, h, relu.weight_ih, relu.weight_hh, relu.bias_ih, relu.bias_hh),
                          relu(x, h), atol=1e-6)
    assert issubclass(torch.OutOfMemoryError, RuntimeError)

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
    assert torch.get_device_module("cpu") is torch.cpu and torch.get_device_module("mps") is torch.mps
    assert torch.get_device_module(torch.device("xpu", 0)) is torch.xpu
    with pytest.raises(RuntimeError, match="^Device 'hpu' does not have a corresponding module registered as "
                                          "'torch.hpu'.$"):
        torch.get_device_module("hpu")


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


def test_native_normalizations_return_their_statistics():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    out, mean, rstd = torch.native_layer_norm(x, (4,), None, None, 1e-5)
    assert mean.shape == (2, 3, 1) and rstd.shape == (2, 3, 1)
    assert torch.allclose(out, (x - mean) * rstd, atol=1e-5)
    xg = torch.randn(2, 6, 5)
    out, mean, rstd = torch.native_group_norm(xg, None, None, 2, 6, 5, 3, 1e-5)
    assert mean.shape == (2, 3) and torch.allclose(out, torch.nn.functional.group_norm(xg, 3), atol=1e-6)
    rm, rv = torch.zeros(6), torch.ones(6)
    out, m, inv = torch.native_batch_norm(xg, None, None, rm, rv, True, 0.1, 1e-5)
    assert torch.allclose(m, xg.mean((0, 2)), atol=1e-6) and torch.allclose(rm, 0.1 * m, atol=1e-6)
    assert torch.native_batch_norm(xg, None, None, rm, rv, False, 0.1, 1e-5)[1].shape == (0,)
    o, mask = torch.native_dropout(x, 0.5, True)
    assert mask.dtype is torch.bool and torch.equal(o, torch.where(mask, 2 * x, torch.zeros_like(x)))


def test_convolution_dispatches_by_rank_and_transposition():
    torch.manual_seed(0)
    F = torch.nn.functional
    x, w, b = torch.randn(2, 3, 8), torch.randn(5, 3, 3), torch.randn(5)
    assert torch.allclose(torch.convolution(x, w, b, [1], [1], [1], False, [0], 1), F.conv1d(x, w, b, 1, 1))
    wt = torch.randn(3, 5, 3)
    assert torch.allclose(torch.convolution(x, wt, None, [2], [1], [1], True, [1], 1),
                          F.conv_transpose1d(x, wt, None, 2, 1, 1))
    t = torch.randn(7, 2, 3)
    wk = torch.randn(3, 3, 4)
    ref = F.conv1d(t.permute(1, 2, 0), wk.permute(2, 1, 0), None, padding=1).permute(2, 0, 1)
    assert torch.allclose(torch.conv_tbc(t, wk, torch.zeros(4), 1), ref)


def _flat(m, layers: int, dirs: int):
    names = []
    for layer in range(layers):
        for suffix in ("", "_reverse")[:dirs]:
            names += [f"{w}_l{layer}{suffix}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    return [getattr(m, n) for n in names]


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_sequence_functions_match_the_modules(kind):
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(kind, torch.nn.RNN)
    extra = {"nonlinearity": kind[4:]} if kind.startswith("rnn") else {}
    m = cls(3, 4, num_layers=2, bidirectional=True, batch_first=True, **extra)
    x, h0, c0 = torch.randn(2, 5, 3), torch.randn(4, 2, 4), torch.randn(4, 2, 4)
    params = _flat(m, 2, 2)
    if kind == "lstm":
        out, h, c = torch.lstm(x, (h0, c0), params, True, 2, 0.0, False, True, True)
        ref_out, (ref_h, ref_c) = m(x, (h0, c0))
        assert torch.allclose(c, ref_c, atol=1e-5)
    else:
        out, h = getattr(torch, kind)(x, h0, params, True, 2, 0.0, False, True, True)
        ref_out, ref_h = m(x, h0)
    assert torch.allclose(out, ref_out, atol=1e-5) and torch.allclose(h, ref_h, atol=1e-5)


def test_native_dropout_draws_its_mask_as_atens_cpu_kernel():
    """ATen's CPU `native_dropout`: a bool mask from `bernoulli_(1 - p)` (float64 uniforms, not `rand_like >= p`),
    then `input.mul(mask).mul_(1 / (1 - p))`."""
    x = torch.randn(500)
    torch.manual_seed(4)
    keep = torch.empty(500, dtype=torch.bool).bernoulli_(0.85)
    torch.manual_seed(4)
    o, mask = torch.ops.aten.native_dropout(x, 0.15, True)
    assert torch.equal(mask, keep)
    np.testing.assert_array_equal(o.numpy(), (x.numpy() * keep.numpy()) * np.float32(1 / 0.85))


def test_embedding_takes_atens_order_and_negative_padding_pads_nothing():
    w = torch.tensor([[1.0, 2.0], [1.0, 5.0], [0.0, 5.0]], requires_grad=True)
    out = torch.embedding(w, torch.tensor([[2, 1]]), -1)
    assert out.tolist() == [[[0.0, 5.0], [1.0, 5.0]]]
    out.sum().backward()
    assert w.grad.tolist() == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    w.grad = None
    torch.embedding(w, torch.tensor([2, 1, 1]), 1, True).sum().backward()
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]


def test_embedding_bag_returns_the_cpu_kernels_four_tensors():
    # PyTorch 2.13's values for each mode: offset2bag, bag_size, max_indices (ties keep the first row)
    w = torch.tensor([[1.0, 2.0], [1.0, 5.0], [0.0, 5.0]])
    i, o = torch.tensor([2, 0, 1, 1]), torch.tensor([0, 3, 3])
    out, o2b, size, arg = torch.embedding_bag(w, i, o, False, 0)
    assert out.tolist() == [[2.0, 12.0], [0.0, 0.0], [1.0, 5.0]]
    assert (o2b.tolist(), size.tolist(), arg.tolist()) == ([], [0, 0, 0], [0, 0, 0])
    _, o2b, size, arg = torch.embedding_bag(w.double(), i, o, False, 0)
    assert o2b.tolist() == [0, 0, 0, 2]
    out, o2b, size, arg = torch.embedding_bag(w, i, o, False, 1)
    assert (o2b.tolist(), size.tolist(), arg.tolist()) == ([0, 0, 0, 2], [3, 0, 1], [3, 0, 1])
    out, _, size, arg = torch.embedding_bag(w, i.int(), o.int(), False, 2, False, None, False, -3)
    assert out.tolist() == [[1.0, 5.0], [0.0, 0.0], [1.0, 5.0]] and size.tolist() == [2, 0, 1]
    assert arg.dtype == torch.int32 and arg.tolist() == [[1, 2], [0, 0], [1, 1]]
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings, -3 through 2, but "
                                           "got 3"):
        torch.embedding_bag(w, i, o, False, 0, False, None, False, 3)


def test_utils_dlpack_is_the_top_level_exchange():
    import ember.torch.utils.dlpack as dlpack

    assert dlpack.from_dlpack is torch.from_dlpack and dlpack.to_dlpack is torch.to_dlpack
    assert [(m.name, int(m)) for m in dlpack.DLDeviceType][:3] == [("kDLCPU", 1), ("kDLCUDA", 2), ("kDLCUDAHost", 3)]
    t = torch.arange(4.0, requires_grad=True)
    assert torch.equal(dlpack.from_dlpack(dlpack.to_dlpack(t)), torch.arange(4.0))


def test_aten_grid_sampler_2d_and_its_backward_are_callable_as_stylegan3s_gradfix_calls_them():
    """`torch.ops.aten.grid_sampler_2d_backward(grad, input, grid, 0, 0, False, output_mask)` gives the autograd
    gradients, None where the mask leaves one out (PyTorch 2.13's sums on these inputs)."""
    x = torch.arange(32.0).reshape(1, 2, 4, 4) / 10
    grid = torch.tensor([[[[-0.5, 0.2], [0.3, -0.9]], [[0.0, 0.0], [0.75, 0.5]]]])
    out = torch.ops.aten.grid_sampler_2d(x, grid, 0, 0, False)
    assert torch.equal(out, torch.nn.functional.grid_sample(x, grid, align_corners=False))
    xr, gr = x.clone().requires_grad_(), grid.clone().requires_grad_()
    torch.nn.functional.grid_sample(xr, gr, align_corners=False).sum().backward()
    gi, gg = torch.ops.aten.grid_sampler_2d_backward(torch.ones(1, 2, 2, 2), x, grid, 0, 0, False, [True, True])
    assert torch.allclose(gi, xr.grad) and torch.allclose(gg, gr.grad)
    none, gg2 = torch.ops.aten.grid_sampler_2d_backward.default(torch.ones(1, 2, 2, 2), x, grid, 0, 0, False,
                                                                 (False, True))
    assert none is None and torch.equal(gg2, gg)
    assert str(torch.ops.aten.grid_sampler_2d.default) == "aten.grid_sampler_2d.default"


def test_aten_convolution_backward_gives_pytorchs_gradients_and_none_where_masked():
    """A grouped transposed convolution's three gradients (PyTorch 2.13's values, rounded to 4 places), and None
    for what `output_mask` leaves out."""
    x = torch.arange(18.0).reshape(1, 2, 3, 3) / 10
    w = torch.arange(24.0).reshape(2, 1, 3, 4) / 7 - 1
    go = torch.arange(40.0).reshape(1, 2, 5, 4) / 3
    gi, gw, gb = torch.ops.aten.convolution_backward(go, x, w, [2], [1, 1], [0, 1], [1, 1], True, [0, 0], 2,
                                                      [True, True, True])
    assert np.allclose(gi.flatten().numpy(), [2.7143, 2.0952, -0.2857, 1.0, -1.3333, -3.7143, -0.7143, -4.7619,
                                              -7.1429, 122.7143, 159.8095, 116.2857, 141.5714, 183.8095, 133.4286,
                                              160.4286, 207.8095, 150.5714], atol=1e-4)
    assert np.allclose(gw[0, 0, 0].numpy(), [5.7, 8.6, 9.8, 6.2], atol=1e-4)
    assert np.allclose(gw[1, 0, 2].numpy(), [89.4, 131.3, 135.2, 87.9], atol=1e-4)
    assert np.allclose(gb.numpy(), [63.3333, 196.6667], atol=1e-4)
    go = torch.tensor([0.5, -1.0, 2.0]).reshape(1, 3, 1, 1)
    gi, gw, gb = torch.ops.aten.convolution_backward.default(go, x, x.new_ones(3, 2, 3, 3), None,
                                                              [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                                              [False, True, False])
    assert gi is None and gb is None and gw.shape == (3, 2, 3, 3)
    assert torch.equal(gw[2], go[0, 2, 0, 0] * x[0])


def test_aten_upsample_bilinear2d_takes_both_overloads():
    """`default(input, output_size, align_corners, scales_h, scales_w)` (the scales enter the source index) and
    `vec(input, None, align_corners, scale_factors)`, PyTorch 2.13's values."""
    x = torch.arange(18.0).reshape(1, 2, 3, 3)
    out = torch.ops.aten.upsample_bilinear2d(x, [5, 4], False, 2.0, 2.0)
    assert out[0, 0].tolist() == [[0.0, 0.25, 0.75, 1.25], [0.75, 1.0, 1.5, 2.0], [2.25, 2.5, 3.0, 3.5],
                                  [3.75, 4.0, 4.5, 5.0], [5.25, 5.5, 6.0, 6.5]]
    vec = torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [2.0, 1.5])
    assert vec.shape == (1, 2, 6, 4)
    assert torch.equal(vec, torch.nn.functional.interpolate(x, scale_factor=(2.0, 1.5), mode="bilinear"))
    assert torch.ops.aten.upsample_bilinear2d.overloads() == ["default", "vec"]

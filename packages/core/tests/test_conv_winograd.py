"""Winograd F(2x2, 3x3) convolutions (NOTE [ Winograd F(2x2, 3x3) convolution ]): conv2d and its input gradient
against float64 references, and the GEMM work they hand the BLAS, counted (never timed)."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import conv as C
from ember.core.ops import conv_winograd as W


def _ref(x, w, b, padding):
    return C._gemm_conv(x.astype(np.float64), w.astype(np.float64), None if b is None else b.astype(np.float64),
                        (1, 1), padding, (1, 1), 1, x.shape[2] + 2 * padding[0] - 2, x.shape[3] + 2 * padding[1] - 2)


def _close(got, want):
    """Within float32 rounding of sums of a few hundred products: relative to the largest output."""
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * np.abs(want).max())


@pytest.fixture
def counted(monkeypatch):
    """The multiply-adds of every GEMM `winograd_conv` runs; the image GEMMs' path refused."""
    macs = []
    real = W._matmul

    def matmul(a, b, out=None):
        macs.append(a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2])
        return real(a, b, out=out)

    def refuse(*args):
        raise AssertionError("the image GEMMs ran")

    monkeypatch.setattr(W, "_matmul", matmul)
    monkeypatch.setattr(C, "_image_gemm_conv", refuse)
    monkeypatch.setattr(C, "_image_gemm_input_grad", refuse)
    return macs


@pytest.mark.parametrize("n, c, o, hw, padding, bias", [
    (64, 32, 64, (26, 26), (0, 0), True),    # LeNet's second layer: 8 images a chunk, 8 chunks
    (9, 16, 64, (18, 20), (1, 0), False),     # a last chunk of fewer images, unequal padding
    (3, 64, 80, (16, 16), (2, 1), True),
])
def test_conv2d_by_winograd_matches_float64_with_four_ninths_of_the_multiplies(counted, n, c, o, hw, padding, bias):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, *hw), dtype=np.float32)
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if bias else None
    got = C.conv2d_op(E.from_numpy(x), E.from_numpy(w), None if b is None else E.from_numpy(b), (1, 1), padding,
                      (1, 1), 1).numpy()
    want = _ref(x, w, b, padding)
    assert got.shape == want.shape and got.flags.c_contiguous
    _close(got, want)
    # 16 products per 2x2 output tile and channel pair: 4 an output, where im2col's GEMM does 9
    assert sum(counted) == 4 * n * o * c * want.shape[2] * want.shape[3]


def test_conv2d_input_gradient_by_winograd_is_the_flipped_convolution(counted):
    rng = np.random.default_rng(1)
    n, c, o = 4, 64, 64  # (below 64 output channels the direct kernel serves the input gradient)
    x = rng.standard_normal((n, c, 18, 18), dtype=np.float32)
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * o)).astype(np.float32)
    g = rng.standard_normal((n, o, 18, 18), dtype=np.float32)
    got = C.conv2d_backward_input(E.from_numpy(g), E.from_numpy(w), x.shape, (1, 1), (1, 1), (1, 1), 1).numpy()
    # grad_input[n, c, i, j] = sum over (o, ki, kj) of g[n, o, i + 1 - ki, j + 1 - kj] w[o, c, ki, kj], in float64
    gp = np.pad(g.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = sum(np.einsum("nohw,oc->nchw", gp[:, :, 2 - ki:20 - ki, 2 - kj:20 - kj], w[:, :, ki, kj].astype(np.float64))
               for ki in range(3) for kj in range(3))
    _close(got, want)
    assert sum(counted) == 4 * n * o * c * 18 * 18


def test_winograd_serves_only_its_layers():
    f32 = np.dtype(np.float32)
    assert W.winograd_ok(f32, 32, 64, 3, 3, (1, 1), (1, 1), 1, 24, 24)
    assert not W.winograd_ok(np.dtype(np.float64), 32, 64, 3, 3, (1, 1), (1, 1), 1, 24, 24)  # float64's rounding
    assert not W.winograd_ok(f32, 32, 64, 3, 3, (1, 1), (1, 1), 1, 25, 24)  # odd planes
    assert not W.winograd_ok(f32, 8, 64, 3, 3, (1, 1), (1, 1), 1, 24, 24)   # too few channels
    assert not W.winograd_ok(f32, 64, 32, 3, 3, (1, 1), (1, 1), 1, 24, 24)  # fewer outputs than inputs
    assert not W.winograd_ok(f32, 32, 64, 3, 3, (2, 2), (1, 1), 1, 24, 24)
    assert not W.winograd_ok(f32, 32, 64, 3, 3, (1, 1), (2, 2), 1, 24, 24)
    assert not W.winograd_ok(f32, 32, 64, 3, 3, (1, 1), (1, 1), 2, 24, 24)
    assert not W.winograd_ok(f32, 32, 64, 5, 5, (1, 1), (1, 1), 1, 24, 24)
    assert not W.winograd_ok(f32, 32, 64, 3, 3, (1, 1), (1, 1), 1, 8, 8)    # small planes: the batch's GEMM


def test_channels_last_input_keeps_its_memory_format_through_winograd(counted):
    rng = np.random.default_rng(2)
    x = E.from_numpy(rng.standard_normal((2, 16, 16, 16), dtype=np.float32)).contiguous(
        memory_format=E.channels_last)
    w = E.from_numpy(rng.standard_normal((16, 16, 3, 3), dtype=np.float32))
    got = E.conv2d(x, w, padding=1)
    assert got.is_contiguous(memory_format=E.channels_last)
    _close(got.numpy(), _ref(x.numpy(), w.numpy(), None, (1, 1)))


def test_winograd_bits_do_not_depend_on_the_thread_count():
    """At two threads the chunks run on worker threads with the BLAS at one (a threaded BLAS's barrier per GEMM
    cost 5-10x on a shared machine), each chunk's GEMMs the same one-thread GEMMs."""
    from ember.core.parallel import get_num_threads, set_num_threads

    rng = np.random.default_rng(3)
    x = E.from_numpy(rng.standard_normal((24, 32, 18, 18), dtype=np.float32))
    w = E.from_numpy(rng.standard_normal((64, 32, 3, 3), dtype=np.float32))
    before = get_num_threads()
    try:
        set_num_threads(1)
        one = C.conv2d_op(x, w, None, (1, 1), (1, 1), (1, 1), 1).numpy()
        set_num_threads(2)
        two = C.conv2d_op(x, w, None, (1, 1), (1, 1), (1, 1), 1).numpy()
    finally:
        set_num_threads(before)
    assert np.array_equal(one, two)

"""Bad input to the op families outside the op table (convolution, pooling, padding, interpolation,
sampling, linear algebra, sorting, bags): a clear exception of PyTorch's type and message on the
CPU and on CUDA alike, or, where PyTorch computes a value, that value against float64. The
messages are PyTorch 2.13's, hard-coded (each case was run against it; ember's own wording for its
primitive ops, which PyTorch does not expose, and for embedding_bag's offsets)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import ember.core as E
from ember.core.dispatch import get_op

L = E.int64


def _r(*shape):
    """A deterministic float32 tensor: sin of 0, 1, 2, ..."""
    return E.tensor(np.sin(np.arange(math.prod(shape), dtype=np.float64)).reshape(shape).astype(np.float32))


def _l(values):
    return E.tensor(values, dtype=L)


# (label, fn(m) -> the call, exception type, PyTorch's message); `m` puts a tensor on the device
ERRORS = [
    ("conv_transpose2d stride 0", lambda m: E.conv_transpose2d(m(_r(1, 1, 3, 3)), m(_r(1, 1, 3, 3)), stride=0),
     RuntimeError, "non-positive stride is not supported"),
    ("conv_transpose1d stride 0", lambda m: E.conv_transpose1d(m(_r(1, 1, 3)), m(_r(1, 1, 3)), stride=0),
     RuntimeError, "non-positive stride is not supported"),
    ("conv_transpose3d stride 0 in depth",
     lambda m: E.conv_transpose3d(m(_r(1, 1, 3, 3, 3)), m(_r(1, 1, 3, 3, 3)), stride=(0, 1, 1)),
     RuntimeError, "non-positive stride is not supported"),
    ("conv_transpose2d dilation 0", lambda m: E.conv_transpose2d(m(_r(1, 1, 3, 3)), m(_r(1, 1, 3, 3)), dilation=0),
     RuntimeError, "dilation should be greater than zero, but got dilation_height: 0, dilation_width: 0"),
    ("conv_transpose3d dilation 0",
     lambda m: E.conv_transpose3d(m(_r(1, 1, 3, 3, 3)), m(_r(1, 1, 3, 3, 3)), dilation=0),
     RuntimeError, "dilation should be greater than zero, but got dilation_depth: 0, dilation_height: 0, "
                   "dilation_width: 0"),
    ("conv_transpose2d negative padding",
     lambda m: E.conv_transpose2d(m(_r(1, 1, 3, 3)), m(_r(1, 1, 3, 3)), padding=-1),
     RuntimeError, "negative padding is not supported"),
    ("conv_transpose2d negative output_padding",
     lambda m: E.conv_transpose2d(m(_r(1, 1, 3, 3)), m(_r(1, 1, 3, 3)), output_padding=-1),
     RuntimeError, "negative output_padding is not supported"),
    ("conv_transpose2d primitive, stride 0",
     lambda m: get_op("conv_transpose2d")(m(_r(1, 1, 3, 3)), m(_r(1, 1, 3, 3)), None, (0, 1), (0, 0), (0, 0), 1,
                                          (1, 1)),
     RuntimeError, "non-positive stride is not supported"),
    ("conv_transpose2d primitive, channel mismatch",
     lambda m: get_op("conv_transpose2d")(m(_r(1, 2, 3, 3)), m(_r(1, 1, 3, 3)), None, (1, 1), (0, 0), (0, 0), 1,
                                          (1, 1)),
     RuntimeError, "Given transposed=1, weight of size [1, 1, 3, 3], expected input[1, 2, 3, 3] to have 1 channels, "
                   "but got 2 channels instead"),
    ("conv_transpose2d primitive, bias size",
     lambda m: get_op("conv_transpose2d")(m(_r(1, 1, 3, 3)), m(_r(1, 2, 3, 3)), m(_r(3)), (1, 1), (0, 0), (0, 0),
                                          1, (1, 1)),
     RuntimeError, "expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead"),
    ("conv2d groups not dividing the weight", lambda m: E.conv2d(m(_r(1, 4, 5, 5)), m(_r(6, 2, 3, 3)), groups=4),
     RuntimeError, "Given groups=4, expected weight to be divisible by 4 at dimension 0, but got weight of size "
                   "[[6, 2, 3, 3]] instead"),  # PyTorch's double brackets
    ("conv2d padding='same' with stride",
     lambda m: E.conv2d(m(_r(1, 1, 5, 5)), m(_r(1, 1, 3, 3)), padding="same", stride=2),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
    ("conv2d unknown padding string", lambda m: E.conv2d(m(_r(1, 1, 5, 5)), m(_r(1, 1, 3, 3)), padding="full"),
     RuntimeError, "Invalid padding string: 'full'"),
    ("avg_pool2d divisor_override 0", lambda m: E.avg_pool2d(m(_r(1, 1, 4, 4)), 2, divisor_override=0),
     RuntimeError, "divisor must be not zero"),
    ("avg_pool2d_backward with too few gradient planes",
     lambda m: get_op("avg_pool2d_backward")(m(_r(1, 2, 2)), (4, 4, 4), (2, 2), (2, 2), (0, 0), False, True, None),
     RuntimeError, "avg_pool2d_backward: expected grad of shape [4, 2, 2]"),
    ("pad of odd length", lambda m: E.pad(m(_r(1, 1, 4)), (1,)),
     RuntimeError, "Padding length must be divisible by 2"),
    ("pad longer than the input's dims", lambda m: E.pad(m(_r(4)), (1, 1, 1, 1)),
     RuntimeError, "Padding length should be less than or equal to two times the input dimension but got padding "
                   "length 4 and input of dimension 1"),
    ("reflect pad cropping everything", lambda m: E.pad(m(_r(1, 1, 4)), (-2, -2), mode="reflect"),
     RuntimeError, "input (W: 4) is too small. Calculated output W: 0"),
    ("interpolate of a 2-D input", lambda m: E.interpolate(m(_r(4, 4)), size=2),
     NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)"),
    ("interpolate by a NaN scale", lambda m: E.interpolate(m(_r(1, 1, 4, 4)), scale_factor=math.nan),
     RuntimeError, "value cannot be converted to type int64_t without overflow"),
    ("interpolate by an infinite scale", lambda m: E.interpolate(m(_r(1, 1, 4, 4)), scale_factor=math.inf),
     RuntimeError, "value cannot be converted to type int64_t without overflow"),
    ("searchsorted sorter of another size", lambda m: E.searchsorted(m(_r(3)), m(_r(2)), sorter=m(_l([0, 1]))),
     RuntimeError, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor [3]and "
                   "got sorter tensor [2]"),
    ("searchsorted float sorter",
     lambda m: E.searchsorted(m(_r(3)), m(_r(2)), sorter=m(E.tensor([0.0, 1.0, 2.0]))),
     RuntimeError, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Float"),
    ("searchsorted rows that do not match",
     lambda m: E.searchsorted(m(_r(2, 3)), m(_r(3, 1))),
     RuntimeError, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                   "boundaries tensor and input value tensor must match"),
    ("kthvalue k past the size", lambda m: E.kthvalue(m(_r(3)), 4),
     RuntimeError, "kthvalue(): selected number k out of range for dimension 0"),
    ("kthvalue of an empty dim", lambda m: E.kthvalue(m(E.zeros(0)), 1),
     IndexError, "kthvalue(): Expected reduction dim 0 to have non-zero size."),
    ("bincount of a negative value", lambda m: E.bincount(m(_l([-1, 2]))),
     RuntimeError, "bincount only supports 1-d non-negative integral inputs."),
    ("diff of a negative order", lambda m: E.diff(m(_r(3)), n=-1),
     RuntimeError, "order must be non-negative but got -1"),
    ("mm shapes", lambda m: E.mm(m(_r(2, 3)), m(_r(4, 2))),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    ("bmm batches", lambda m: E.bmm(m(_r(2, 2, 3)), m(_r(3, 3, 2))),
     RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."),
    ("dot sizes", lambda m: E.dot(m(_r(3)), m(_r(4))),
     RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
                   "but got 3 and 4 elements respectively"),
    ("linalg.inv of a non-square matrix", lambda m: E.linalg.inv(m(_r(2, 3))),
     RuntimeError, "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("linalg.inv of a singular matrix", lambda m: E.linalg.inv(m(E.tensor([[1.0, 2.0], [2.0, 4.0]]))),
     RuntimeError, "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the "
                   "input matrix is singular."),
    ("linalg.inv of a batch with a singular matrix",
     lambda m: E.linalg.inv(m(E.stack([E.eye(2), E.tensor([[1.0, 2.0], [2.0, 4.0]])]))),
     RuntimeError, "linalg.inv: (Batch element 1): The diagonal element 2 is zero"),
    ("linalg.solve of a batch with a singular matrix",
     lambda m: E.linalg.solve(m(E.stack([E.eye(2), E.zeros(2, 2)])), m(E.ones(2, 2))),
     RuntimeError, "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."),
    ("linalg.solve batch dims", lambda m: E.linalg.solve(m(_r(2, 3, 3)), m(_r(3, 3, 1))),
     RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    ("linalg.solve shapes", lambda m: E.linalg.solve(m(_r(3, 3)), m(_r(4))),
     RuntimeError, "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"),
    ("linalg.solve dtypes", lambda m: E.linalg.solve(m(E.eye(2)), m(E.ones(2, dtype=E.float64))),
     RuntimeError, "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type "
                   "Double instead"),
    ("linalg.cholesky of an indefinite matrix", lambda m: E.linalg.cholesky(m(E.tensor([[1.0, 2.0], [2.0, 1.0]]))),
     RuntimeError, "linalg.cholesky: The factorization could not be completed because the input is not "
                   "positive-definite (the leading minor of order 2 is not positive-definite)."),
    ("linalg.cholesky of a batch with an indefinite matrix",
     lambda m: E.linalg.cholesky(m(E.stack([E.eye(2), -E.eye(2)]))),
     RuntimeError, "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input "
                   "is not positive-definite (the leading minor of order 1 is not positive-definite)."),
    ("linalg.qr mode", lambda m: E.linalg.qr(m(_r(3, 3)), mode="foo"),
     RuntimeError, "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', or 'complete'"),
    ("linalg.eigh UPLO", lambda m: E.linalg.eigh(m(E.eye(2)), UPLO="X"),
     RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got X"),
    ("linalg.det of a vector", lambda m: E.linalg.det(m(_r(3))),
     RuntimeError, "linalg.det: The input tensor A must have at least 2 dimensions."),
    ("searchsorted sorter index out of range",
     lambda m: E.searchsorted(m(_r(3)), m(_r(2)), sorter=m(_l([0, 1, 5]))),
     RuntimeError, "torch.searchsorted(): sorter index out of range"),
    ("searchsorted sorter of another size and dtype (the size is checked first)",
     lambda m: E.searchsorted(m(_r(3)), m(_r(2)), sorter=m(_r(4))),
     RuntimeError, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor [3]and "
                   "got sorter tensor [4]"),
    ("conv2d input and weight of two dtypes", lambda m: E.conv2d(m(_r(1, 1, 3, 3)), m(_r(1, 1, 2, 2).double())),
     RuntimeError, "expected scalar type Float but found Double"),
    ("conv2d of an integer input too small for the kernel (the size is checked first)",
     lambda m: E.conv2d(m(_l([[[1, 2, 3]]])), m(_r(1, 1, 2, 2))),
     RuntimeError, "Calculated padded input size per channel: (1 x 3). Kernel size: (2 x 2). Kernel size can't be "
                   "greater than actual input size"),
    ("add of integers with a float alpha", lambda m: E.add(m(_l([1, 2])), m(_l([1, 2])), alpha=0.5),
     RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."),
    ("sub of integers with a float alpha", lambda m: E.sub(m(_l([1, 2])), 1, alpha=0.5),
     RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."),
    ("add with a bool alpha", lambda m: E.add(m(_r(2)), m(_r(2)), alpha=True),
     RuntimeError, "Boolean alpha only supported for Boolean results."),
    ("add with a complex alpha", lambda m: E.add(m(_r(2)), m(_r(2)), alpha=1j),
     RuntimeError, "For non-complex input tensors, argument alpha must not be a complex number."),
    ("lerp end of another dtype", lambda m: E.lerp(m(_r(3)), m(_r(3).double()), 0.5),
     RuntimeError, "expected dtype float for `end` but got dtype double"),
    ("lerp weight of another dtype", lambda m: E.lerp(m(_r(3).double()), m(_r(3).double()), m(_r(3))),
     RuntimeError, "expected dtype double for `weight` but got dtype float"),
    ("lerp of integers", lambda m: E.lerp(m(_l([1, 2])), m(_l([1, 2])), 0.5),
     NotImplementedError, "\"lerp_kernel_scalar\" not implemented for 'Long'"),
    ("lerp of shapes that do not broadcast", lambda m: E.lerp(m(_r(3)), m(_r(4)), 0.5),
     RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    ("searchsorted negative sorter index",
     lambda m: E.searchsorted(m(_r(3)), m(_r(2)), sorter=m(_l([0, -1, 1]))),
     RuntimeError, "torch.searchsorted(): sorter index out of range"),
]

# errors PyTorch raises on the CPU from the values of an index: the CUDA kernels skip them instead
CPU_VALUE_ERRORS = [
    ("embedding_bag offsets past the indices",
     lambda m: E.embedding_bag(m(_l([0, 1, 2])), m(_r(4, 2)), m(_l([0, 5]))),
     RuntimeError, "offsets[-1] can not be greater than input's length 3 but got offsets[-1] of 5"),
    ("embedding_bag offsets not from 0",
     lambda m: E.embedding_bag(m(_l([0, 1, 2])), m(_r(4, 2)), m(_l([1, 2]))),
     RuntimeError, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                   "However, got 1\n[ torch.LongTensor{} ]"),
]


def _expect(fn, exc, msg, move):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(move)


def _cuda(t):
    return t.to("cuda")


@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS + CPU_VALUE_ERRORS],
                         ids=[c[0] for c in ERRORS + CPU_VALUE_ERRORS])
def test_bad_input_raises_pytorchs_error_on_the_cpu(fn, exc, msg):
    _expect(fn, exc, msg, lambda t: t)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_input_raises_the_same_error_on_cuda(fn, exc, msg):
    _expect(fn, exc, msg, _cuda)


def _lerp_with_a_0dim_weight_of_another_dtype(m):
    return E.lerp(m(E.zeros(2)), m(E.ones(2)), m(E.tensor(0.25, dtype=E.float64))), np.array([0.25, 0.25])


def _avg_pool_negative_divisor(m):
    x = m(_r(1, 1, 4, 4))
    return E.avg_pool2d(x, 2, divisor_override=-1), -np.sin(np.arange(16.0)).reshape(4, 4).reshape(2, 2, 2, 2) \
        .transpose(0, 2, 1, 3).sum((2, 3))[None, None]


def _avg_pool3d_negative_divisor(m):
    x = m(E.ones(1, 1, 4, 4, 4))
    return E.avg_pool3d(x, 2, divisor_override=-1), np.full((1, 1, 2, 2, 2), -8.0)


def _embedding_bag_of_rows(m):
    w = np.arange(8.0).reshape(4, 2)
    return (E.embedding_bag(m(_l([[0, 1], [2, 3]])), m(E.tensor(w, dtype=E.float32)), mode="sum"),
            np.stack([w[0] + w[1], w[2] + w[3]]))


def _embedding_bag_with_offsets(m):
    w = np.arange(8.0).reshape(4, 2)
    return (E.embedding_bag(m(_l([0, 1, 2])), m(E.tensor(w, dtype=E.float32)), m(_l([0, 2])), mode="sum"),
            np.stack([w[0] + w[1], w[2]]))


def _grid_sample_nan(m):
    grid = np.array([[[[math.nan, 0.25], [0.5, 0.25]]]])
    out = E.grid_sample(m(E.ones(1, 1, 3, 3)), m(E.tensor(grid, dtype=E.float32)), padding_mode="zeros",
                        align_corners=False)
    return out, np.array([[[[math.nan, 1.0]]]])


def _grid_sample_huge_reflection(m):
    grid = np.array([[[[1e30, 0.0], [-math.inf, 0.0]]]])
    out = E.grid_sample(m(E.ones(1, 1, 3, 3)), m(E.tensor(grid, dtype=E.float32)), padding_mode="reflection",
                        align_corners=True)
    return out, np.array([[[[1.0, 1.0]]]])


def _reflect_and_replicate_with_negative_pads(m):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    t = m(E.tensor(x, dtype=E.float32))
    got = E.stack([E.pad(t, (1, -1, -2, 1), mode="reflect"), E.pad(t, (1, -1, -2, 1), mode="replicate")])
    want = [np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 0)), mode=mode)[:, :, 2:, :-1] for mode in ("reflect", "edge")]
    return got, np.stack(want)


def _adaptive_max_pool3d_to_zero(m):
    out, idx = E.adaptive_max_pool3d(m(E.ones(1, 1, 4, 4, 4)), 0, return_indices=True)
    assert idx.shape == (1, 1, 0, 0, 0) and idx.dtype is L
    return out, np.zeros((1, 1, 0, 0, 0))


# (label, fn(m) -> (ember's result, the float64 expectation)): values PyTorch computes, where ember
# raised, returned 0 or crashed before
VALUES = [
    ("lerp with a 0-dim weight of another dtype", _lerp_with_a_0dim_weight_of_another_dtype),
    ("avg_pool2d with a negative divisor_override", _avg_pool_negative_divisor),
    ("avg_pool3d with a negative divisor_override", _avg_pool3d_negative_divisor),
    ("embedding_bag of a 2-D input", _embedding_bag_of_rows),
    ("embedding_bag with offsets", _embedding_bag_with_offsets),
    ("bilinear grid_sample of a NaN coordinate under zeros padding is NaN", _grid_sample_nan),
    ("grid_sample reflection of huge and infinite coordinates", _grid_sample_huge_reflection),
    ("adaptive_max_pool3d to size 0", _adaptive_max_pool3d_to_zero),
    ("reflect and replicate pads with negative entries crop", _reflect_and_replicate_with_negative_pads),
    ("multinomial draws zero-probability categories last",
     lambda m: (E.multinomial(m(E.tensor([1.0, 0.0])), 2), np.array([0, 1]))),
    ("searchsorted with a sorter", lambda m: (E.searchsorted(m(E.tensor([3.0, 1.0, 2.0])), m(E.tensor([1.5, 2.5])),
                                                             sorter=m(_l([1, 2, 0]))), np.array([1, 2]))),
]


def _check_value(fn, move):
    got, want = fn(move)
    g = got.cpu().numpy().astype(np.float64)
    assert g.shape == want.shape
    assert np.array_equal(np.isnan(g), np.isnan(want))
    np.testing.assert_allclose(g[~np.isnan(g)], want[~np.isnan(want)], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn", [c[1] for c in VALUES], ids=[c[0] for c in VALUES])
def test_edge_values_against_float64_on_the_cpu(fn):
    _check_value(fn, lambda t: t)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn", [c[1] for c in VALUES], ids=[c[0] for c in VALUES])
def test_edge_values_against_float64_on_cuda(fn):
    _check_value(fn, _cuda)


@pytest.mark.parametrize("name", ["conv_transpose2d", "avg_pool2d_backward", "searchsorted", "kthvalue", "mm", "bmm",
                                  "dot", "linalg_inv", "linalg_det", "linalg_slogdet", "linalg_solve",
                                  "linalg_cholesky", "linalg_qr", "linalg_svd", "linalg_eigh"])
def test_checked_ops_declare_a_meta_step(name):
    """The check belongs to the op, not to one device's kernel, so every device gets it."""
    assert get_op(name).check is not None


def test_add_of_bools_with_an_integer_alpha_stays_bool():
    """PyTorch scales a bool result by alpha as a bool (an integer product would promote it to int64)."""
    r = E.add(E.tensor([True, False, False]), E.tensor([False, True, False]), alpha=2)
    assert r.dtype == E.bool
    np.testing.assert_array_equal(r.numpy(), [True, True, False])
    np.testing.assert_array_equal(E.add(E.tensor([True, False]), True, alpha=0).numpy(), [True, False])

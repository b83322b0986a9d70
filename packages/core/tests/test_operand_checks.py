"""The meta step (NOTE [ The meta step ] in ember.core.dispatch): every operand whose shape bounds a
kernel's loop over another is checked before the kernel runs, on CPU and CUDA alike, with PyTorch's
exception type and message (hard-coded here from PyTorch 2.13)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.ops.embedding import embedding_bag_backward, embedding_bag_op
from ember.core.ops.optim_kernels import adam_step, sgd_step

L = E.int64


def _z(*shape, dtype=E.float32):
    return E.zeros(*shape, dtype=dtype)


def _i(*shape, fill=0, dtype=L):
    return E.full(shape, fill, dtype=dtype)


# (label, fn(move) -> the op's call, exception type, PyTorch's message); `move` puts a tensor on the device
CASES = [
    ("scatter_add src shorter than index", lambda m: m(_z(1000)).scatter_add_(0, m(E.arange(1000)), m(E.tensor([1.0]))),
     RuntimeError, "Expected index [1000] to be no larger than self [1000] apart from dimension 0 and to be no larger "
                   "size than src [1]"),
    ("scatter_ src shorter than index", lambda m: m(_z(10)).scatter_(0, m(E.arange(10)), m(E.tensor([1.0]))),
     RuntimeError, "Expected index [10] to be no larger than self [10] apart from dimension 0 and to be no larger "
                   "size than src [1]"),
    ("scatter src shorter along another dim", lambda m: E.scatter(m(_z(3, 4)), 1, m(_i(2, 2)), m(E.ones(2, 1))),
     RuntimeError, "Expected index [2, 2] to be no larger than self [3, 4] apart from dimension 1 and to be no "
                   "larger size than src [2, 1]"),
    ("scatter_reduce src shorter than index",
     lambda m: E.scatter_reduce(m(_z(10)), 0, m(E.arange(10)), m(E.tensor([1.0])), "sum"),
     RuntimeError, "Expected index [10] to be no larger than self [10] apart from dimension 0 and to be no larger "
                   "size than src [1]"),
    ("scatter_reduce amax src shorter", lambda m: E.scatter_reduce(m(_z(3, 4)), 1, m(_i(2, 2)), m(E.ones(2, 1)),
                                                                    "amax"),
     RuntimeError, "Expected index [2, 2] to be no larger than self [3, 4] apart from dimension 1 and to be no "
                   "larger size than src [2, 1]"),
    ("scatter value, index larger than self", lambda m: E.scatter(m(_z(3, 4)), 1, m(_i(4, 2)), value=2.0),
     RuntimeError, "Expected index [4, 2] to be no larger than self [3, 4] apart from dimension 1"),
    ("scatter index rank", lambda m: E.scatter_add(m(_z(3, 4)), 1, m(_i(2)), m(E.ones(2))),
     RuntimeError, "Index tensor must have the same number of dimensions as self tensor"),
    ("scatter src rank", lambda m: E.scatter_add(m(_z(3, 4)), 1, m(_i(2, 2)), m(E.ones(2, 2, 2))),
     RuntimeError, "Index tensor must have the same number of dimensions as src tensor"),
    ("scatter float index", lambda m: E.scatter_add(m(_z(3, 4)), 1, m(_z(2, 2)), m(E.ones(2, 2))),
     RuntimeError, "scatter(): Expected dtype int32/int64 for index"),
    ("scatter src dtype", lambda m: E.scatter(m(_z(3, 4)), 1, m(_i(2, 2)), m(E.ones(2, 2, dtype=E.float64))),
     RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    ("gather index larger than input", lambda m: E.gather(m(_z(3, 4)), 1, m(_i(4, 2))),
     RuntimeError, "Size does not match at dimension 0 expected index [4, 2] to be no larger than self [3, 4] apart "
                   "from dimension 1"),
    ("gather index rank", lambda m: E.gather(m(_z(3, 4)), 1, m(_i(2))),
     RuntimeError, "Index tensor must have the same number of dimensions as input tensor"),
    # PyTorch words the float-index error three ways
    ("index_select float index", lambda m: E.index_select(m(_z(3, 4)), 1, m(_z(2))),
     RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    ("index_add_ float index", lambda m: E.index_add(m(_z(3, 4)), 1, m(_z(2)), m(E.ones(3, 2))),
     RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: Float"),
    ("index_reduce float index", lambda m: E.index_reduce(m(_z(3, 4)), 1, m(_z(2)), m(E.ones(3, 2)), "prod"),
     RuntimeError, "index_reduce_(): Expected dtype int32/int64 for index but got: Float"),
    ("index_reduce index past the end", lambda m: E.index_reduce(m(_z(3, 4)), 1, m(E.tensor([4])), m(E.ones(3, 1)),
                                                                  "amax"), IndexError, "index out of range in self"),
    ("index_reduce negative index", lambda m: m(_z(3)).index_reduce_(0, m(E.tensor([-1])), m(E.ones(1)), "prod"),
     IndexError, "index out of range in self"),
    ("index_select 2-D index", lambda m: E.index_select(m(_z(3, 4)), 1, m(_i(1, 1))),
     IndexError, "index_select(): Index is supposed to be a vector"),
    ("index_add source too short", lambda m: m(_z(3, 4)).index_add_(1, m(E.tensor([0, 1])), m(E.ones(3, 1))),
     RuntimeError, "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: 1"),
    ("index_add source rank", lambda m: m(_z(3, 4)).index_add_(1, m(E.tensor([0, 1])), m(E.ones(6))),
     RuntimeError, "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1"),
    ("index_add source other dims", lambda m: m(_z(3, 4)).index_add_(1, m(E.tensor([0, 1])), m(E.ones(2, 2))),
     RuntimeError, "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                   "self.shape = [3, 4] source.shape = [2, 2]"),
    ("index_add dtype", lambda m: m(_z(3)).index_add_(0, m(E.tensor([0])), m(E.tensor([1]))),
     RuntimeError, "index_add_(): self (Float) and source (Long) must have the same scalar type"),
    ("index_copy source too short", lambda m: m(_z(3, 4)).index_copy_(1, m(E.tensor([0, 1])), m(E.ones(3, 1))),
     IndexError, "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)"),
    ("index_copy source rank", lambda m: m(_z(3, 4)).index_copy_(1, m(E.tensor([0, 1])), m(E.ones(6))),
     IndexError, "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                 "Source dimensionality (1), destination dimensionality (2)"),
    ("index_copy slices", lambda m: m(_z(3, 4)).index_copy_(1, m(E.tensor([0, 1])), m(E.ones(2, 3))),
     RuntimeError, "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                   "3 at dimension 1 and source slice shape: 2 at dimension 0."),
    ("index_copy scalar source", lambda m: m(_z(4)).index_copy_(0, m(E.tensor([0, 1])), m(E.tensor(1.0))),
     IndexError, "index_copy_(): When source is scalar, index should have one element (got 2)"),
    ("index_fill 2-D index", lambda m: m(_z(3, 4)).index_fill_(1, m(_i(1, 2)), 1.0),
     RuntimeError, "Index has to be a vector/scalar"),
    ("put_ source too short", lambda m: m(_z(3, 4)).put_(m(E.tensor([0, 1])), m(E.ones(1))),
     IndexError, "put_(): Expected source and index to have the same number of elements, but got source.numel() = 1, "
                 "index.numel() = 2"),
    ("put_ dtype", lambda m: m(_z(3, 4)).put_(m(E.tensor([0, 1])), m(E.ones(2, dtype=E.float64))),
     RuntimeError, "put_(): self and source expected to have the same dtype, but got self.dtype = Float and "
                   "source.dtype = Double"),
    ("masked_scatter_ mask larger than self",
     lambda m: m(_z(3, 4)).masked_scatter_(m(E.ones(3, 5, dtype=E.bool)), m(E.ones(15))),
     RuntimeError, "The expanded size of the tensor (4) must match the existing size (5) at non-singleton dimension 1."
                   "  Target sizes: [3, 4].  Tensor sizes: [3, 5]"),
    ("masked_scatter dtype",
     lambda m: m(_z(3, 4)).masked_scatter_(m(E.ones(3, 4, dtype=E.bool)), m(E.ones(12, dtype=E.float64))),
     RuntimeError, "masked_scatter: expected self and source to have same dtypes but gotFloat and Double"),
    ("masked_fill mask does not broadcast", lambda m: E.masked_fill(m(_z(3, 4)), m(E.ones(3, 5, dtype=E.bool)), 1.0),
     RuntimeError, "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("masked_fill_ mask larger than self",
     lambda m: m(_z(3, 4)).masked_fill_(m(E.ones(2, 3, 4, dtype=E.bool)), 1.0),
     RuntimeError, "output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]"),
    ("masked_select mask does not broadcast", lambda m: E.masked_select(m(_z(3, 4)), m(E.ones(3, 5, dtype=E.bool))),
     RuntimeError, "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("embedding_bag per_sample_weights too short",
     lambda m: embedding_bag_op(m(E.ones(5, 3)), m(E.tensor([0, 1, 2, 3])), m(E.tensor([0, 2])), "sum", m(E.ones(2)),
                                False, -1),
     RuntimeError, "embedding_bag: expected per_sample_weights.numel() (2) to be the same as indices.numel() (4)"),
    ("embedding_bag_backward grad with too few bags",
     lambda m: embedding_bag_backward(m(E.ones(1, 3)), m(E.tensor([0, 1, 2, 3])), m(E.tensor([0, 2])),
                                      m(E.ones(2, dtype=L)), m(E.zeros(2, 3, dtype=L)), 5, "max", None, False, -1),
     RuntimeError, "embedding_bag_backward: expected grad and max_indices of shape (2, D) and bag_size of shape (2,)"),
    ("conv2d primitive, input channels", lambda m: get_op("conv2d")(m(E.ones(1, 1, 4, 4)), m(E.ones(2, 1, 3, 3)), None,
                                                                     (1, 1), (0, 0), (1, 1), 2),
     RuntimeError, "Given groups=2, weight of size [2, 1, 3, 3], expected input[1, 1, 4, 4] to have 2 channels, but "
                   "got 1 channels instead"),
    ("conv2d_backward_input grad larger than the output",
     lambda m: get_op("conv2d_backward_input")(m(E.ones(1, 2, 5, 5)), m(E.ones(2, 1, 3, 3)), (1, 2, 4, 4), (1, 1),
                                               (0, 0), (1, 1), 2),
     RuntimeError, "conv2d_backward_input: expected grad of shape [1, 2, 2, 2] (at most, spatially)"),
    ("conv2d_backward_weight grad larger than the output",
     lambda m: get_op("conv2d_backward_weight")(m(E.ones(1, 2, 5, 5)), m(E.ones(1, 2, 4, 4)), (2, 1, 3, 3), (1, 1),
                                                (0, 0), (1, 1), 2),
     RuntimeError, "conv2d_backward_weight: expected grad of shape [1, 2, 2, 2] (at most, spatially)"),
    ("max_pool2d primitive, padding past half the window",
     lambda m: get_op("max_pool2d_with_indices")(m(E.ones(1, 1, 4, 4)), (2, 2), (1, 1), (3, 3), (1, 1), False),
     RuntimeError, "pad should be at most half of effective kernel size, but got pad=3, kernel_size=2 and dilation=1"),
    ("avg_pool2d primitive, window larger than the input",
     lambda m: get_op("avg_pool2d")(m(E.ones(1, 1, 4, 4)), (5, 5), (1, 1), (0, 0), False, True, None),
     RuntimeError, "Given input size: (1x4x4). Calculated output size: (1x0x0). Output size is too small"),
    ("batch_norm primitive, one-element statistics",
     lambda m: get_op("batch_norm")(m(E.ones(2, 3, 4)), None, None, m(E.ones(1)), m(E.ones(1)), False, 0.1, 1e-5),
     RuntimeError, "running_mean should contain 3 elements not 1"),
    ("batch_norm_backward saved statistics too short",
     lambda m: get_op("batch_norm_backward")(m(E.ones(2, 3, 4)), m(E.ones(2, 3, 4)), None, m(E.ones(1)),
                                             m(E.ones(3)), True),
     RuntimeError, "save_mean should contain 3 elements not 1"),
    ("col2im primitive, fewer columns than blocks",
     lambda m: get_op("col2im")(m(E.ones(1, 4, 2)), (3, 3), (2, 2), (1, 1), (0, 0), (1, 1)),
     RuntimeError, "expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, "
                   "but got input.size(2)=2."),
    ("adaptive_avg_pool2d_backward grad with fewer planes",
     lambda m: get_op("adaptive_avg_pool2d_backward")(m(E.ones(1, 1, 2, 2)), (2, 1, 4, 4)),
     RuntimeError, "adaptive_avg_pool2d_backward: expected grad with the leading dims of the input [2, 1, 4, 4]"),
    ("cross_entropy primitive, target shorter than the batch",
     lambda m: get_op("cross_entropy")(m(E.ones(3, 5)), m(E.tensor([0, 1])), None, "mean", -100, 0.0),
     ValueError, "Expected input batch_size (3) to match target batch_size (2)."),
    ("cross_entropy primitive, weight shorter than the classes",
     lambda m: get_op("cross_entropy")(m(E.ones(3, 5)), m(E.tensor([0, 1, 4])), m(E.ones(2)), "mean", -100, 0.0),
     RuntimeError, "weight tensor should be defined either for all 5 classes or no classes but got weight tensor of "
                   "shape: [2]"),
    ("nll_loss_backward target shorter than the batch",
     lambda m: get_op("nll_loss_backward")(m(E.ones(())), m(E.ones(3, 5)), m(E.tensor([0, 1])), None, "mean", -100,
                                           m(E.ones(()))),
     ValueError, "Expected input batch_size (3) to match target batch_size (2)."),
    ("cross_entropy_backward gradient of the wrong size",
     lambda m: get_op("cross_entropy_backward")(m(E.ones(2)), m(E.ones(3, 5)), m(E.tensor([0, 1, 2])), None, "none",
                                                -100, 0.0),
     RuntimeError, "cross_entropy_backward: expected a gradient of 3 elements (the loss's)"),
    ("upsample primitive, empty input",
     lambda m: get_op("upsample")(m(E.ones(1, 1, 0)), (3,), "linear", False, None),
     RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 0) and output (W: 3)"),
    ("index_put_ values with an extra leading dim",
     lambda m: m(_z(3, 4)).index_put_((m(E.tensor([0, 1])),), m(E.ones(1, 2, 4))),
     RuntimeError, "shape mismatch: value tensor of shape [1, 2, 4] cannot be broadcast to indexing result of shape "
                   "[2, 4]"),
    ("index_put_ index tensors that do not broadcast",
     lambda m: m(_z(3, 4)).index_put_((m(E.tensor([0, 1])), m(E.tensor([0, 1, 2]))), m(E.ones(3)), accumulate=True),
     IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
    ("sgd_step grad shorter than param",
     lambda m: sgd_step(m(_z(10)), m(_z(3)), None, 0.1, 0.0, 0.0, 0.0, False, False, True),
     ValueError, "sgd_step: state and gradient must have the parameter's shape"),
    ("adam_step state shorter than param",
     lambda m: adam_step(m(_z(10)), m(_z(10)), m(_z(10)), m(_z(4)), None, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, False,
                         False, False),
     ValueError, "adam_step: state and gradient must have the parameter's shape"),
    # linear algebra: one meta step per op, so CPU and CUDA refuse the same inputs the same way
    ("linalg.inv of bfloat16", lambda m: E.linalg.inv(m(E.eye(2, dtype=E.bfloat16))),
     RuntimeError, "linalg.inv: Low precision dtypes not supported. Got BFloat16"),
    ("linalg.qr bad mode", lambda m: E.linalg.qr(m(E.eye(2)), mode="x"),
     RuntimeError, "qr received unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or 'complete'"),
    ("bmm batch2 of the wrong size", lambda m: E.bmm(m(_z(2, 3, 4)), m(_z(3, 4, 5))),
     RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."),
    ("topk k past the dim", lambda m: E.topk(m(_z(3)), 5),
     RuntimeError, "selected index k out of range"),
    ("tril of a vector", lambda m: E.tril(m(_z(3))),
     RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    ("dot of two lengths", lambda m: E.dot(m(_z(3)), m(_z(4))),
     RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements"),
]

# index values out of range: the meta step reads device indices to the host, so CUDA raises the CPU's
# error (PyTorch's type and message) instead of skipping the index in the kernel
_OOR = "index {} is out of bounds for dimension 0 with size 3"
VALUE_CASES = [
    ("gather index past the end", lambda m: E.gather(m(_z(3, 4)), 0, m(_i(1, 1, fill=3))), RuntimeError,
     _OOR.format(3)),
    ("gather negative index", lambda m: E.gather(m(_z(3, 4)), 0, m(_i(1, 1, fill=-1))), RuntimeError, _OOR.format(-1)),
    ("take_along_dim index past the end", lambda m: E.take_along_dim(m(_z(3, 4)), m(_i(1, 4, fill=3)), 0),
     RuntimeError, _OOR.format(3)),
    ("scatter index past the end", lambda m: E.scatter(m(_z(3, 4)), 0, m(_i(1, 1, fill=3)), value=1.0),
     RuntimeError, _OOR.format(3)),
    ("scatter_add huge index", lambda m: E.scatter_add(m(_z(3, 4)), 0, m(_i(1, 1, fill=2**40)), m(_z(1, 1))),
     RuntimeError, _OOR.format(2**40)),
    ("scatter_reduce negative index", lambda m: E.scatter_reduce(m(_z(3, 4)), 0, m(_i(1, 1, fill=-4)), m(_z(1, 1)),
                                                                  "amax"), RuntimeError, _OOR.format(-4)),
    ("index_select index past the end", lambda m: E.index_select(m(_z(3, 4)), 0, m(_i(2, fill=3))), IndexError,
     "index out of range in self"),
    ("index_select int32 negative", lambda m: E.index_select(m(_z(3, 4)), 0, m(_i(1, fill=-1, dtype=E.int32))),
     IndexError, "index out of range in self"),
    ("index_add index past the end", lambda m: E.index_add(m(_z(3, 4)), 0, m(_i(1, fill=3)), m(_z(1, 4))),
     RuntimeError, _OOR.format(3)),
    ("index_copy negative index", lambda m: E.index_copy(m(_z(3, 4)), 0, m(_i(1, fill=-1)), m(_z(1, 4))),
     IndexError, "index_copy_(): " + _OOR.format(-1)),
    ("index_fill index below -size", lambda m: E.index_fill(m(_z(3, 4)), 0, m(_i(1, fill=-4)), 1.0), IndexError,
     _OOR.format(-4)),
    ("x[idx] index past the end", lambda m: m(_z(3, 4))[m(_i(1, fill=3))], IndexError, _OOR.format(3)),
    ("x[idx] = v index below -size", lambda m: m(_z(3, 4)).__setitem__(m(_i(1, fill=-4)), 1.0), IndexError,
     _OOR.format(-4)),
    ("index_put_ accumulate huge index",
     lambda m: m(_z(3, 4)).index_put_((m(_i(1, fill=2**40)),), m(E.ones(4)), accumulate=True), IndexError,
     _OOR.format(2**40)),
    ("take index past the end", lambda m: E.take(m(_z(3, 4)), m(_i(1, fill=12))), IndexError,
     "out of range: tried to access index 12 on a tensor of 12 elements."),
    ("put_ negative index", lambda m: m(_z(3, 4)).put_(m(_i(1, fill=-13)), m(_z(1))), IndexError,
     "out of range: tried to access index -13 on a tensor of 12 elements."),
    ("embedding index past the end", lambda m: get_op("embedding")(m(_z(3, 4)), m(_i(2, fill=3)), -1, False),
     IndexError, "index out of range in self"),
    ("embedding_bag negative index",
     lambda m: embedding_bag_op(m(_z(3, 4)), m(E.tensor([0, -1])), m(E.tensor([0])), "sum", None, False, -1),
     RuntimeError, "Index 1 of input takes value -1 which is not in the valid range [0, 3)"),
    ("masked_scatter source shorter than the mask",
     lambda m: E.masked_scatter(m(_z(3, 4)), m(E.ones(3, 4, dtype=E.bool)), m(E.ones(5))), RuntimeError,
     "Number of elements of source < number of ones in mask"),
    ("nll_loss target past the classes", lambda m: E.nll_loss(m(E.ones(3, 5)), m(E.tensor([0, 1, 5]))), IndexError,
     "Target 5 is out of bounds."),
    ("cross_entropy negative target", lambda m: E.cross_entropy(m(E.ones(3, 5)), m(E.tensor([0, 1, -5]))),
     IndexError, "Target -5 is out of bounds."),
    ("bincount negative value", lambda m: E.bincount(m(E.tensor([1, -1]))), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
]
CASES += VALUE_CASES


def _run_case(fn, exc, msg, move):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(move)


@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_operand_shapes_are_checked_before_the_cpu_kernel(fn, exc, msg):
    _run_case(fn, exc, msg, lambda t: t)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_operand_shapes_are_checked_before_the_cuda_kernel(fn, exc, msg):
    _run_case(fn, exc, msg, lambda t: t.to("cuda"))


@pytest.mark.parametrize("name", ["scatter", "scatter_add", "scatter_reduce", "gather", "index_select", "index_add",
                                  "index_copy", "index_fill", "put", "masked_scatter", "masked_fill",
                                  "masked_select", "resize_", "embedding_bag", "embedding_bag_backward",
                                  "conv2d", "conv2d_backward_input", "conv2d_backward_weight",
                                  "max_pool2d_with_indices", "avg_pool2d", "max_pool2d_backward",
                                  "batch_norm", "batch_norm_backward", "im2col", "col2im",
                                  "adaptive_avg_pool2d_backward", "cross_entropy", "cross_entropy_backward",
                                  "nll_loss", "nll_loss_backward", "upsample", "index", "index_put_", "sgd_step",
                                  "adam_step", "rmsprop_step", "adagrad_step", "adamax_step", "nadam_step",
                                  "radam_step", "adadelta_step"])
def test_bounded_ops_declare_a_meta_step(name):
    """The check belongs to the op, not to one device's kernel, so every device gets it."""
    assert get_op(name).check is not None


def test_rejected_scatter_leaves_self_untouched():
    x = E.zeros(1000)
    with pytest.raises(RuntimeError, match="no larger size than src"):
        x.scatter_add_(0, E.arange(1000), E.tensor([1.0]))
    assert float(x.abs().sum()) == 0.0


def test_empty_index_scatters_and_gathers_nothing():
    x = E.ones(3, 4)
    assert x.scatter_add(1, E.zeros(0, dtype=L), E.ones(2)).tolist() == x.tolist()
    assert E.gather(x, 1, E.zeros(0, 9, dtype=L)).shape == (0, 9)


def test_out_of_range_scatter_index_is_a_runtime_error():
    with pytest.raises(RuntimeError, match=re.escape("index 1000 is out of bounds for dimension 0 with size 1000")):
        E.zeros(1000).scatter_add_(0, E.full((1,), 1000, dtype=L), E.tensor([1.0]))


def test_masked_scatter_out_of_place_broadcasts_self_and_mask():
    r = E.zeros(3, 4).masked_scatter(E.ones(2, 3, 4, dtype=E.bool), E.arange(30).float())
    assert r.shape == (2, 3, 4)
    assert r.reshape(-1).tolist() == list(range(24))


def test_masked_scatter_source_too_short():
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        E.zeros(3, 4).masked_scatter(E.ones(3, 4, dtype=E.bool), E.ones(5))


def test_huge_scatter_with_short_source_raises_in_a_child_process():
    """The issue's 16M-element reproduction died by SIGSEGV: it must now exit cleanly with the error."""
    code = textwrap.dedent("""
        import ember.core as E
        n = 16 * 1024 * 1024
        x = E.zeros(n)
        try:
            x.scatter_add_(0, E.arange(n), E.tensor([1.0]))
        except RuntimeError as e:
            print(type(e).__name__, e)
        else:
            print("no error")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ("RuntimeError Expected index [16777216] to be no larger than self [16777216] apart "
                                "from dimension 0 and to be no larger size than src [1]")


def test_resize_refuses_negative_and_non_integer_sizes():
    x = E.zeros(2)
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        x.resize_(3, -1)
    with pytest.raises(TypeError, match=r"^resize_\(\): argument 'size' \(position 1\) must be tuple of ints, not fl"):
        x.resize_(2.5)
    assert x.shape == (2,)
    assert x.resize_((3, 2)).shape == (3, 2)


def test_max_pool_backward_checks_its_indices_against_the_gradient():
    from ember.core.ops.pool import max_pool2d_backward

    grad = E.ones(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same as that of the gradient"):
        max_pool2d_backward(grad, E.zeros(1, 1, 1, 2, dtype=L), (1, 1, 4, 4))
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same as that of the gradient"):
        max_pool2d_backward(E.ones(2, 1, 2, 2), E.zeros(2, 1, 2, 2, dtype=L), (1, 1, 4, 4))
    with pytest.raises(IndexError, match="Found an invalid max index: 99"):
        max_pool2d_backward(grad, E.full((1, 1, 2, 2), 99, dtype=L), (1, 1, 4, 4))
    assert max_pool2d_backward(grad, E.tensor([[[[0, 3], [8, 15]]]]), (1, 1, 4, 4)).sum().item() == 4.0


# ops whose public functions already refused these operands with PyTorch's type and message: kept here so
# that they stay refused (each bounds a kernel's loop by another operand's shape)
PUBLIC = [
    ("pad: negative pads past the input", lambda: E.pad(E.ones(1, 1, 3), (-2, -2)),
     RuntimeError, "narrow(): length must be non-negative."),
    ("pad: reflect pad not below the size", lambda: E.pad(E.ones(1, 1, 3), (3, 0), mode="reflect"),
     RuntimeError, "Padding size should be less than the corresponding input dimension"),
    ("pad: circular pad wraps twice", lambda: E.pad(E.ones(1, 1, 3), (5, 5), mode="circular"),
     RuntimeError, "Padding value causes wrapping around more than once."),
    ("interpolate: output size 0", lambda: E.interpolate(E.ones(1, 1, 3), size=0),
     RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 3) and output (W: 0)"),
    ("interpolate: negative scale", lambda: E.interpolate(E.ones(1, 1, 3), scale_factor=-1.0),
     RuntimeError, "Input and output sizes should be greater than 0"),
    ("repeat_interleave: repeats length", lambda: E.repeat_interleave(E.ones(3), E.tensor([1, 2])),
     RuntimeError, "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
                   "input.size(0) = 3"),
    ("repeat_interleave: negative repeats", lambda: E.repeat_interleave(E.ones(3), E.tensor([1, -2, 1])),
     RuntimeError, "repeats can not be negative"),
    ("bincount: weights length", lambda: E.bincount(E.tensor([0, 1, 2]), weights=E.ones(2)),
     RuntimeError, "weights should be 1-d and have the same length as input"),
    ("histc: bins", lambda: E.histc(E.ones(3), bins=0), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    ("diagonal_scatter: src size", lambda: E.diagonal_scatter(E.zeros(3, 3), E.ones(4)),
     RuntimeError, "expected src to have a size equal to the slice of self. src size = [4], slice size = [3]"),
    ("select_scatter: src size", lambda: E.select_scatter(E.zeros(3, 4), E.ones(5), 0, 0),
     RuntimeError, "expected src to have a size equal to the slice of self. src size = [5], slice size = [4]"),
    ("slice_scatter: src size", lambda: E.slice_scatter(E.zeros(3, 4), E.ones(3, 3), 1, 0, 2),
     RuntimeError, "expected src to have a size equal to the slice of self. src size = [3, 3], slice size = [3, 2]"),
    ("take: flat index", lambda: E.take(E.zeros(3, 4), E.tensor([12])),
     IndexError, "out of range: tried to access index 12 on a tensor of 12 elements."),
    ("put_: flat index", lambda: E.zeros(3, 4).put_(E.tensor([0, 12]), E.ones(2)),
     IndexError, "out of range: tried to access index 12 on a tensor of 12 elements."),
    ("index_put_: value shape", lambda: E.zeros(3, 4).index_put_((E.tensor([0, 1]),), E.ones(3, 4), accumulate=True),
     RuntimeError, "shape mismatch: value tensor of shape [3, 4] cannot be broadcast to indexing result of shape "
                   "[2, 4]"),
    ("index_put_: index value", lambda: E.zeros(3, 4).index_put_((E.tensor([0, 3]),), E.tensor(1.0)),
     IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ("embedding: index value", lambda: E.embedding(E.tensor([0, 5]), E.ones(5, 3)),
     IndexError, "index out of range in self"),
    ("fold: blocks", lambda: E.fold(E.ones(1, 4, 3), output_size=(3, 3), kernel_size=2),
     RuntimeError, "expected size of input's dimension 2 to match the calculated number of sliding blocks"),
    ("nll_loss: target value", lambda: E.nll_loss(E.zeros(3, 5), E.tensor([0, 5, 1])),
     IndexError, "Target 5 is out of bounds."),
]


@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in PUBLIC], ids=[c[0] for c in PUBLIC])
def test_public_functions_refuse_operands_that_bound_a_kernel(fn, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        fn()


def _number_writes(t, dt, val):
    def setitem(key):
        x = t.zeros(3, dtype=dt)
        x[key(x)] = val
        return x

    x = t.zeros(3, dtype=dt)
    return {
        "setitem_int": lambda: setitem(lambda x: 0), "setitem_mask": lambda: setitem(lambda x: x == 0),
        "setitem_slice": lambda: setitem(lambda x: slice(0, 2)),
        "setitem_index": lambda: setitem(lambda x: t.tensor([0])),
        "where": lambda: t.where(x == 0, x, val), "where_first": lambda: t.where(x == 0, val, x),
        "scatter": lambda: x.scatter(0, t.tensor([0]), val), "addcmul": lambda: t.addcmul(x, x, x, value=val),
        "pow": lambda: x ** val, "floordiv": lambda: x // val, "remainder": lambda: x % val,
        "clamp_min": lambda: x.clamp_min(val), "tensor": lambda: t.tensor([val], dtype=dt),
    }


def test_python_numbers_written_into_integer_tensors_convert_as_pytorchs():
    torch = pytest.importorskip("torch")
    for name in ("int8", "uint8", "int16", "int32", "int64"):
        for val in (300, -300, 2**40, 2**63, 1e10, float("nan"), float("inf"), -129, 255, -255, -256, 7):
            want, got = _number_writes(torch, getattr(torch, name), val), _number_writes(E, getattr(E, name), val)
            for case in want:
                outcome = []
                for fn in (want[case], got[case]):
                    try:
                        outcome.append(fn().tolist())
                    except Exception as e:  # noqa: BLE001 - the exception is what is compared
                        outcome.append((type(e).__name__, str(e)))
                assert repr(outcome[0]) == repr(outcome[1]), (case, name, val)  # (NaN compares unequal)

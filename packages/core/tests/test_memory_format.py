"""`memory_format=`: channels_last layouts, PyTorch's preserve_format rule, and the rank checks."""

import numpy as np
import pytest

import ember.core as ec
from ember.core.ops.layout import clone, contiguous


def _x(*shape):
    return ec.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


def test_contiguous_channels_last_gives_nhwc_strides_and_same_values():
    x = _x(2, 3, 4, 5)
    y = contiguous(x, memory_format=ec.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=ec.channels_last) and not y.is_contiguous()
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert contiguous(y, memory_format=ec.channels_last) is y
    back = contiguous(y)
    assert back.stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_contiguous_with_preserve_format_refuses_to_copy():
    x = _x(2, 3, 4, 5)
    assert contiguous(x, memory_format=ec.preserve_format) is x
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        contiguous(x.permute(0, 2, 3, 1), memory_format=ec.preserve_format)


def test_channels_last_3d_strides():
    x = _x(2, 3, 2, 4, 5)
    y = contiguous(x, memory_format=ec.channels_last_3d)
    assert y.stride() == (120, 1, 60, 15, 3)
    assert y.is_contiguous(memory_format=ec.channels_last_3d)
    np.testing.assert_array_equal(y.numpy(), x.numpy())


@pytest.mark.parametrize(("shape", "fmt", "msg"), [
    ((3, 4), "channels_last", "required rank 4 tensor to use channels_last format"),
    ((2, 3, 4, 5), "channels_last_3d", "required rank 5 tensor to use channels_last_3d format")])
def test_wrong_rank_raises_runtime_error(shape, fmt, msg):
    x = _x(*shape)
    for f in (lambda: contiguous(x, memory_format=getattr(ec, fmt)), lambda: clone(x, memory_format=getattr(ec, fmt)),
              lambda: ec.empty_like(x, memory_format=getattr(ec, fmt)), lambda: x.to(memory_format=getattr(ec, fmt))):
        with pytest.raises(RuntimeError, match=msg):
            f()


def test_preserve_format_keeps_a_dense_permuted_layout():
    x = contiguous(_x(2, 3, 4, 5), memory_format=ec.channels_last)
    for f in (clone, ec.empty_like, ec.zeros_like, ec.ones_like, ec.randn_like, ec.rand_like,
              lambda t: ec.full_like(t, 2.0), lambda t: ec.randint_like(t, 5)):
        assert f(x).stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(clone(x).numpy(), x.numpy())
    t = _x(3, 4).t()
    c = clone(t)
    assert c.stride() == (1, 4)
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    np.testing.assert_array_equal(ec.ones_like(x).numpy(), np.ones((2, 3, 4, 5)))
    assert clone(x, memory_format=ec.contiguous_format).stride() == (60, 20, 5, 1)


def test_preserve_format_of_a_strided_slice_infers_dense_strides_in_the_same_order():
    t = _x(6, 4).t()[:, ::2]  # shape (4, 3), strides (1, 8): not dense, column-major order
    c = clone(t)
    assert c.stride() == (1, 4)
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    assert clone(_x(4, 6)[:, ::2]).stride() == (3, 1)


def test_new_tensors_in_channels_last():
    assert ec.empty(2, 3, 4, 5, memory_format=ec.channels_last).stride() == (60, 1, 15, 3)
    z = ec.zeros_like(_x(2, 3, 4, 5), memory_format=ec.channels_last)
    assert z.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3, 4, 5)))


def test_to_memory_format_converts_and_returns_self_when_already_laid_out():
    x = _x(2, 3, 4, 5)
    y = x.to(memory_format=ec.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.to(memory_format=ec.channels_last) is y
    assert x.to(memory_format=ec.contiguous_format) is x
    np.testing.assert_array_equal(y.to(ec.float64, memory_format=ec.contiguous_format).numpy(), x.numpy())
    assert y.to(ec.float64, memory_format=ec.contiguous_format).stride() == (60, 20, 5, 1)


def test_to_memory_format_returns_self_when_the_strides_suggest_the_format():
    """PyTorch's `suggest_memory_format` decides, not the contiguity: an N111-like tensor is row-major
    until its strides put the channel dim innermost, and a transposed matrix is already contiguous_format.
    Strides: PyTorch 2.13's."""
    t = _x(3, 4).t()
    assert t.to(memory_format=ec.contiguous_format) is t
    n11 = _x(2, 3, 1, 1)
    assert contiguous(n11, memory_format=ec.channels_last) is n11  # is_contiguous(channels_last) holds
    cl = n11.to(memory_format=ec.channels_last)
    assert cl.stride() == (3, 1, 3, 3)
    assert cl.to(memory_format=ec.channels_last) is cl
    assert cl.to(memory_format=ec.contiguous_format).stride() == (3, 1, 1, 1)
    np.testing.assert_array_equal(cl.numpy(), n11.numpy())
    z = _x(2, 4, 3, 5).permute(0, 2, 1, 3)
    assert z.to(memory_format=ec.contiguous_format) is z
    assert z.to(memory_format=ec.channels_last).stride() == (60, 1, 15, 3)


@pytest.mark.torch
def test_to_memory_format_aliases_as_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(120, dtype=np.float32)
    for shape, perm in [((2, 3, 1, 1), (0, 1, 2, 3)), ((2, 1, 4, 5), (0, 2, 3, 1)), ((2, 3, 4, 5), (0, 2, 1, 3)),
                        ((2, 3, 4, 5), (3, 2, 1, 0)), ((2, 3, 1, 5), (0, 3, 2, 1)), ((2, 3, 2, 2, 2), (0, 2, 3, 4, 1))]:
        data = a[:int(np.prod(shape))].reshape([shape[p] for p in perm])
        inv = np.argsort(perm).tolist()
        mine, theirs = ec.tensor(data).permute(*inv), torch.from_numpy(data).permute(*inv)
        formats = [("contiguous_format", "contiguous_format"), ("channels_last", "channels_last")]
        if len(shape) == 5:
            formats = [("contiguous_format", "contiguous_format"), ("channels_last_3d", "channels_last_3d")]
        for fe, ft in formats:
            r, w = mine.to(memory_format=getattr(ec, fe)), theirs.to(memory_format=getattr(torch, ft))
            assert r.stride() == w.stride() and (r is mine) == (w is theirs), (shape, perm, fe)


def test_a_dtype_conversion_keeps_the_layout():
    x = _x(2, 3, 4, 5)
    y = contiguous(x, memory_format=ec.channels_last)
    for z in (y.to(ec.float64), x.to(ec.float64, memory_format=ec.channels_last)):
        assert z.dtype is ec.float64 and z.stride() == (60, 1, 15, 3)
        np.testing.assert_array_equal(z.numpy(), x.numpy())
    t = _x(3, 4).t().to(ec.float16)
    assert t.stride() == (1, 4)
    np.testing.assert_array_equal(t.numpy(), _x(3, 4).numpy().T)


def test_elementwise_and_reductions_of_channels_last_are_right():
    x = _x(2, 3, 4, 5)
    y = contiguous(x, memory_format=ec.channels_last)
    np.testing.assert_array_equal((y * 2 + y).numpy(), x.numpy() * 3)
    np.testing.assert_allclose(y.sum(dim=(0, 2, 3)).numpy(), x.numpy().sum(axis=(0, 2, 3)))
    np.testing.assert_array_equal(y.reshape(2, -1).numpy(), x.numpy().reshape(2, -1))


@pytest.mark.torch
def test_strides_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    for perm in [(0, 1, 2, 3), (0, 2, 3, 1), (3, 2, 1, 0), (1, 0, 3, 2)]:
        inv = np.argsort(perm).tolist()
        te = ec.tensor(np.ascontiguousarray(a.transpose(perm))).permute(*inv)
        tt = torch.from_numpy(np.ascontiguousarray(a.transpose(perm))).permute(*inv)
        assert te.stride() == tt.stride()
        assert clone(te).stride() == tt.clone().stride(), perm
        assert ec.empty_like(te).stride() == torch.empty_like(tt).stride(), perm
        assert clone(te[:, :, ::2]).stride() == tt[:, :, ::2].clone().stride(), perm
        assert clone(te[:, :, 1:3, ::2]).stride() == tt[:, :, 1:3, ::2].clone().stride(), perm
    assert (contiguous(ec.tensor(a), memory_format=ec.channels_last).stride()
            == torch.from_numpy(a).contiguous(memory_format=torch.channels_last).stride())


@pytest.mark.cuda
def test_cuda_clone_and_like_in_channels_last():
    if not ec.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    x = _x(2, 3, 2, 2)
    y = contiguous(x.to("cuda"), memory_format=ec.channels_last)
    assert y.stride() == (12, 1, 6, 3) and y.device.type == "cuda"
    np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())
    assert clone(y).stride() == (12, 1, 6, 3)
    np.testing.assert_array_equal(clone(y).cpu().numpy(), x.numpy())
    assert ec.zeros_like(y).stride() == (12, 1, 6, 3)


def _cl(*shape):
    return contiguous(_x(*shape), memory_format=ec.channels_last)


@pytest.mark.parametrize("op, want", [
    (lambda x: ec.conv2d(x, ec.ones(5, 3, 3, 3)), (20, 1, 10, 5)),
    (lambda x: ec.batch_norm(x, None, None, training=True), (48, 1, 12, 3)),
    (lambda x: ec.max_pool2d(x, 2), (12, 1, 6, 3)),
    (lambda x: ec.group_norm(x, 3), (48, 1, 12, 3)),
    (lambda x: ec.interpolate(x, scale_factor=2, mode="bilinear"), (192, 1, 24, 3)),
    (lambda x: ec.adaptive_avg_pool2d(x, 1), (3, 1, 3, 3)),
    (lambda x: ec.adaptive_avg_pool2d(x, 2), (12, 1, 6, 3)),
    (lambda x: ec.avg_pool2d(x, 2), (12, 1, 6, 3)),
    (lambda x: ec.avg_pool2d(x, 3, 1, 1, count_include_pad=False), (48, 1, 12, 3)),
    (lambda x: ec.max_pool2d(x, 2, return_indices=True)[1], (12, 1, 6, 3)),
    (lambda x: ec.adaptive_max_pool2d(x, 2), (12, 1, 6, 3)),
    (lambda x: ec.pad(x, (1, 1, 1, 1), value=2.0), (108, 1, 18, 3)),
    (lambda x: ec.pad(x, (-1, 0, 0, 0)), (36, 1, 9, 3)),
    (lambda x: ec.pad(x, (1, 1, 1, 1), mode="reflect"), (108, 1, 18, 3)),
    (lambda x: ec.pad(x, (1, 1, 1, 1), mode="replicate"), (108, 1, 18, 3)),
    (lambda x: ec.pad(x, (1, 1, 1, 1), mode="circular"), (108, 36, 6, 1)),
    (lambda x: ec.conv_transpose2d(x, ec.ones(3, 2, 2, 2), stride=2), (128, 1, 16, 2)),
    (lambda x: ec.pixel_unshuffle(x, 2), (48, 1, 24, 12)),
    (lambda x: ec.pixel_shuffle(ec.cat([x, x, x, x], 1), 2), (192, 1, 24, 3)),
])
def test_conv_norm_and_pool_answer_in_a_channels_last_inputs_layout(op, want):
    x = _cl(2, 3, 4, 4)
    out = op(x)
    assert out.stride() == want  # PyTorch's CPU kernels' strides
    np.testing.assert_allclose(out.numpy(), op(_x(2, 3, 4, 4)).numpy(), rtol=1e-6)


def test_conv_with_a_channels_last_weight_answers_channels_last():
    out = ec.conv2d(_x(2, 3, 4, 4), contiguous(ec.ones(5, 3, 3, 3), memory_format=ec.channels_last))
    assert out.stride() == (20, 1, 10, 5)
    np.testing.assert_allclose(out.numpy(), ec.conv2d(_x(2, 3, 4, 4), ec.ones(5, 3, 3, 3)).numpy())
    assert ec.conv2d(_x(2, 3, 4, 4), ec.ones(5, 3, 1, 1)).is_contiguous()  # a 1x1 weight suggests no format


def _cl3d(*shape):
    return contiguous(_x(*shape), memory_format=ec.channels_last_3d)


@pytest.mark.parametrize("op, want", [
    (lambda x: ec.batch_norm(x, None, None, training=True), (128, 1, 64, 16, 4)),
    (lambda x: ec.group_norm(x, 2), (128, 1, 64, 16, 4)),
    (lambda x: ec.pad(x, (1, 1, 0, 0, 1, 0)), (288, 1, 96, 24, 4)),
    (lambda x: ec.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"), (576, 1, 144, 24, 4)),
    (lambda x: ec.interpolate(x, scale_factor=2, mode="trilinear"), (1024, 1, 256, 32, 4)),
    (lambda x: ec.interpolate(x, scale_factor=2), (1024, 1, 256, 32, 4)),
    (lambda x: ec.max_pool3d(x, 2), (16, 1, 16, 8, 4)),
    (lambda x: ec.max_pool3d(x, 2, return_indices=True)[1], (16, 1, 16, 8, 4)),
    (lambda x: ec.adaptive_avg_pool3d(x, 1), (4, 1, 4, 4, 4)),
    (lambda x: ec.conv3d(x, ec.ones(2, 4, 1, 1, 1)), (64, 32, 16, 4, 1)),  # PyTorch's conv3d answers NCDHW
    (lambda x: ec.avg_pool3d(x, 1), (128, 32, 16, 4, 1)),
])
def test_channels_last_3d_inputs_answer_in_pytorchs_layouts(op, want):
    x = _cl3d(1, 4, 2, 4, 4)
    out = op(x)
    assert out.stride() == want  # PyTorch's CPU kernels' strides
    np.testing.assert_allclose(out.numpy(), op(_x(1, 4, 2, 4, 4)).numpy(), rtol=1e-6)


def test_resize_lays_the_new_sizes_out_in_the_memory_format_asked_for():
    """PyTorch's strides and version counts (torch 2.13): the same sizes only restride, bumping nothing."""
    x = ec.zeros(2, 3, 4, 5)
    x.resize_(2, 3, 4, 5, memory_format=ec.channels_last)
    assert x.stride() == (60, 1, 15, 3) and x._version == 0
    x.resize_(1, 3, 4, 5, memory_format=ec.channels_last)
    assert x.stride() == (60, 1, 15, 3) and x._version == 1
    x.resize_(1, 3, 4, 6)
    assert x.stride() == (72, 24, 6, 1) and x._version == 2
    v = ec.zeros(1, 2, 3, 4, 5).resize_(1, 2, 3, 4, 6, memory_format=ec.channels_last_3d)
    assert v.stride() == (144, 1, 48, 12, 2) and v._storage.nbytes == 576
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        ec.zeros(3).resize_(1, 2, 3, memory_format=ec.channels_last)
    with pytest.raises(RuntimeError, match="^Unsupported memory formatPreserve$"):
        ec.zeros(3).resize_(3, memory_format=ec.preserve_format)


def test_resize_as_takes_the_format_its_template_suggests_under_preserve_format():
    cl = contiguous(_x(2, 3, 4, 5), memory_format=ec.channels_last)
    assert ec.empty(0).resize_as_(cl).stride() == (60, 20, 5, 1)
    assert ec.empty(0).resize_as_(cl, memory_format=ec.preserve_format).stride() == (60, 1, 15, 3)
    assert ec.empty(0).resize_as_(_x(3, 4).t(), memory_format=ec.preserve_format).stride() == (3, 1)


def test_channels_last_tensors_without_elements_take_pytorchs_strides_and_flags():
    """PyTorch 2.13: channels_last strides multiply the sizes as they are (a 0 included); is_contiguous(channels_last)
    reads an empty tensor's strides, and an empty tensor suggests no channels_last (`to` copies)."""
    e = ec.empty(2, 0, 4, 5, memory_format=ec.channels_last)
    assert e.stride() == (0, 1, 0, 0) and e.is_contiguous(memory_format=ec.channels_last)
    assert ec.empty_like(e).stride() == (0, 1, 0, 0) and clone(e).stride() == (0, 1, 0, 0)
    n = ec.empty(0, 3, 4, 5)
    assert n.is_contiguous() and not n.is_contiguous(memory_format=ec.channels_last)
    c = contiguous(n, memory_format=ec.channels_last)
    assert c.stride() == (60, 1, 15, 3) and c.is_contiguous(memory_format=ec.channels_last)
    assert c.to(memory_format=ec.channels_last) is not c
    h = contiguous(ec.empty(2, 3, 0, 5), memory_format=ec.channels_last)
    assert h.stride() == (0, 1, 15, 3)


def test_dense_strides_of_a_matrix_is_pytorchs_non_overlapping_and_dense():
    """`dense_strides`' matrix shortcut (no sort) answers as the general rule: some order of the dims of size 2 or
    more is row-major."""
    from itertools import product

    from ember.core.ops.memfmt import dense_strides

    def reference(shape, strides):
        expected = 1
        for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d]):
            if strides[d] != expected:
                return False
            expected *= shape[d]
        return True

    for a, b, sa, sb in product(range(5), range(5), range(9), range(9)):
        assert dense_strides((a, b), (sa, sb)) == reference((a, b), (sa, sb)), ((a, b), (sa, sb))

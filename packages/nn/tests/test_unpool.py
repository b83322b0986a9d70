"""max_unpool1d/2d/3d and MaxUnpool*: values against numpy, gradients by finite differences,
PyTorch's values, its checks of the indices and of output_size, and the CUDA path (simulator)."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def _pool_ref(x, k):
    """Non-overlapping max pooling of the last len(k) dims in float64: (values, flat indices)."""
    nd = len(k)
    lead, sp = x.shape[:-nd], x.shape[-nd:]
    osp = tuple(s // kk for s, kk in zip(sp, k))
    vals, idx = np.zeros(lead + osp), np.zeros(lead + osp, dtype=np.int64)
    for li in np.ndindex(*lead):
        for o in np.ndindex(*osp):
            best, where = -np.inf, 0
            for w in np.ndindex(*k):
                pos = tuple(oo * kk + ww for oo, kk, ww in zip(o, k, w))
                if x[li + pos] > best:
                    best, where = x[li + pos], np.ravel_multi_index(pos, sp)
            vals[li + o], idx[li + o] = best, where
    return vals, idx


def _unpool_ref(vals, idx, out_sp):
    nd = len(out_sp)
    lead = vals.shape[:-nd]
    out = np.zeros(lead + tuple(out_sp))
    for li in np.ndindex(*lead):
        flat = out[li].reshape(-1)
        flat[idx[li].reshape(-1)] = vals[li].reshape(-1)
    return out


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unpool_puts_each_value_back_at_its_index(nd):
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 3) + (4, 6, 2)[:nd])
    vals, idx = _pool_ref(x, (2,) * nd)
    fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[nd - 1]
    got = fn(E.tensor(vals), E.tensor(idx), 2).numpy()
    np.testing.assert_array_equal(got, _unpool_ref(vals, idx, x.shape[2:]))
    np.testing.assert_array_equal(got, np.where(got != 0, x, 0))  # the maxima, in place
    # unbatched input and a larger output size within a stride of the default
    big = tuple(s + 1 for s in x.shape[2:])
    got = fn(E.tensor(vals[0]), E.tensor(idx[0]), 2, output_size=big).numpy()
    np.testing.assert_array_equal(got, _unpool_ref(vals[0], idx[0], big))


def test_empty_input_unpools_to_an_empty_output_with_a_gradient():
    v = E.zeros(0, 3, 2, 2, requires_grad=True)
    out = F.max_unpool2d(v, E.zeros(0, 3, 2, 2, dtype=E.int64), 2)
    assert tuple(out.shape) == (0, 3, 4, 4)
    out.sum().backward()
    assert tuple(v.grad.shape) == (0, 3, 2, 2)


def test_unpool_after_max_pool2d_round_trips_the_maxima_and_modules_match():
    x = E.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4)))
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    un = nn.MaxUnpool2d(2)(out, idx)
    np.testing.assert_array_equal(un.numpy(), F.max_unpool2d(out, idx, 2).numpy())
    assert (un.numpy() == np.where(un.numpy() != 0, x.numpy(), 0)).all()
    assert repr(nn.MaxUnpool1d(3)) == "MaxUnpool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert tuple(nn.MaxUnpool3d(2, 1).stride) == (1, 1, 1)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unpool_gradient_by_finite_differences(nd):
    rng = np.random.default_rng(10 + nd)
    vals, idx = _pool_ref(rng.standard_normal((1, 2) + (4, 4, 2)[:nd]), (2,) * nd)
    fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[nd - 1]
    assert E.gradcheck(lambda v: fn(v, E.tensor(idx), 2), (E.tensor(vals, requires_grad=True),))


def test_invalid_indices_raise_and_write_nothing_out_of_bounds():
    v = E.ones(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 100 \(output volumes are of size 4x4"):
        F.max_unpool2d(v, E.tensor([[[[0, 1], [2, 100]]]]), 2)
    with pytest.raises(RuntimeError, match="Found an invalid max index: -1"):
        F.max_unpool2d(v, E.tensor([[[[0, 1], [2, -1]]]]), 2)
    with pytest.raises(RuntimeError, match=r"output volumes are of size 4x1"):
        F.max_unpool1d(E.ones(1, 1, 2), E.tensor([[[0, 9]]]), 2)
    with pytest.raises(RuntimeError, match="output volumes are of size 4x4x4"):
        F.max_unpool3d(E.ones(1, 1, 2, 2, 2), E.full((1, 1, 2, 2, 2), 64, dtype=E.int64), 2)


def test_invalid_index_message_names_the_last_bad_index_and_closes():
    """PyTorch names the last bad index of the first plane holding one, in full parentheses."""
    with pytest.raises(RuntimeError, match=r"^Found an invalid max index: 18 \(output volumes are of size 4x4\)$"):
        F.max_unpool2d(E.ones(1, 1, 2, 2), E.tensor([[[[6, 8], [16, 18]]]]), 2)
    with pytest.raises(RuntimeError, match=r"^Found an invalid max index: 70 \(output volumes are of size 8x1\)$"):
        F.max_unpool1d(E.ones(2, 1, 4), E.tensor([[[0, 99, 4, 70]], [[1, 2, 50, 6]]]), 2)


def test_bad_indices_and_output_sizes_raise_pytorchs_errors():
    v = E.ones(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64 but got: Int"):
        F.max_unpool2d(v, E.zeros(1, 1, 2, 2, dtype=E.int32), 2)
    with pytest.raises(RuntimeError, match=r"Expected shape of indices to be same as that of the input tensor "
                                           r"\(\[1, 1, 2, 2\]\) but got indices tensor with shape: \[1, 2, 2\]"):
        F.max_unpool2d(v, E.zeros(1, 2, 2, dtype=E.int64), 2)
    with pytest.raises(ValueError, match=r'invalid output_size "\(9, 9\)" \(dim 0 must be between 2 and 6\)'):
        F.max_unpool2d(v, E.zeros(1, 1, 2, 2, dtype=E.int64), 2, output_size=(9, 9))
    with pytest.raises(ValueError, match="output_size should be a sequence containing 2 or 4 elements"):
        F.max_unpool2d(v, E.zeros(1, 1, 2, 2, dtype=E.int64), 2, output_size=(4, 4, 4))
    with pytest.raises(RuntimeError, match="Input to max_unpooling3d should be a 4d or 5d Tensor"):
        F.max_unpool3d(E.ones(2, 2, 2), E.zeros(2, 2, 2, dtype=E.int64), 2)
    for nd in (1, 2, 3):  # each module's own forward, named in Python's TypeError as PyTorch's
        with pytest.raises(TypeError, match=rf"^MaxUnpool{nd}d.forward\(\) missing 1 required positional argument: "
                                            "'indices'$"):
            getattr(nn, f"MaxUnpool{nd}d")(2)(v)


@pytest.mark.torch
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unpool_matches_pytorch(nd):
    torch = pytest.importorskip("torch")
    x = torch.tensor(np.random.default_rng(20 + nd).standard_normal((2, 3) + (6, 4, 4)[:nd]))
    pool = (torch.nn.functional.max_pool1d, torch.nn.functional.max_pool2d, torch.nn.functional.max_pool3d)[nd - 1]
    unpool = (torch.nn.functional.max_unpool1d, torch.nn.functional.max_unpool2d,
              torch.nn.functional.max_unpool3d)[nd - 1]
    vals, idx = pool(x, 2, return_indices=True)
    vals.requires_grad_(True)
    want = unpool(vals, idx, 2, output_size=[s + 1 for s in x.shape[2:]])
    g = torch.tensor(np.random.default_rng(1).standard_normal(want.shape))
    want.backward(g)
    ev = E.tensor(vals.detach().numpy(), requires_grad=True)
    fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[nd - 1]
    got = fn(ev, E.tensor(idx.numpy()), 2, output_size=[s + 1 for s in x.shape[2:]])
    got.backward(E.tensor(g.numpy()))
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(ev.grad.numpy(), vals.grad.numpy())


@pytest.mark.cuda
def test_unpool_on_cuda_matches_the_cpu():
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    vals, idx = _pool_ref(np.random.default_rng(3).standard_normal((1, 2, 4, 4)), (2, 2))
    want = F.max_unpool2d(E.tensor(vals), E.tensor(idx), 2).numpy()
    got = F.max_unpool2d(E.tensor(vals).cuda(), E.tensor(idx).cuda(), 2)
    assert got.device.type == "cuda"
    np.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.cuda
def test_unpool_on_cuda_raises_the_cpus_error_for_an_index_outside_the_plane():
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    vals, idx = E.ones(1, 1, 2, 2), E.tensor([[[[0, 1], [2, 100]]]])
    for dev in ("cpu", "cuda"):
        with pytest.raises(RuntimeError, match=r"Found an invalid max index: 100 \(output volumes are of size 4x4"):
            F.max_unpool2d(vals.to(dev), idx.to(dev), 2)

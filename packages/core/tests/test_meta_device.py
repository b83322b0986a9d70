"""The meta device: shape-only tensors, their factories, ops and PyTorch's errors on reading values."""

import pickle

import pytest

import ember.core as E

NO_DATA = "Cannot copy out of meta tensor; no data!"


def meta(*shape, dtype=None):
    return E.empty(shape, dtype=dtype, device="meta")  # a tuple: `empty()` without a size is a TypeError


def test_meta_tensor_has_geometry_and_no_data():
    x = meta(3, 4)
    assert x.device == E.device("meta") and x.device.type == "meta" and str(x.device) == "meta"
    assert x.is_meta and not x.is_cpu and not x.is_cuda
    assert x.shape == (3, 4) and x.stride() == (4, 1) and x.dtype is E.float32
    assert x.untyped_storage().nbytes == 48 and x.data_ptr() == 0
    assert not E.empty(2).is_meta


def test_no_memory_is_allocated():
    big = E.empty(10**12, device="meta")
    assert big.numel() == 10**12 and big.untyped_storage().nbytes == 4 * 10**12
    z = E.zeros(10**6, 10**6, device="meta", dtype=E.float64)
    assert z.untyped_storage().nbytes == 8 * 10**12
    v = big.view(10**6, 10**6).t()
    assert v.shape == (10**6, 10**6) and v.stride() == (1, 10**6) and v.is_meta
    assert v.untyped_storage() is big.untyped_storage()
    assert big.fill_(1.0) is big and big.uniform_() is big  # in-place writes have nothing to write
    for t in (E.arange(10**12, device="meta"), E.linspace(0, 1, 10**12, device="meta"), E.randn(10**12, device="meta"),
              E.eye(10**6, device="meta")):
        assert t.is_meta and t.numel() == 10**12


def test_a_functional_op_too_big_for_its_stand_ins_refuses():
    with pytest.raises(NotImplementedError, match="^add on meta tensors of more than 4294967296 bytes"):
        E.empty(10**12, device="meta") + 1


@pytest.mark.parametrize("make", [
    lambda: E.empty(2, 3), lambda: E.zeros(2, 3), lambda: E.ones(2, 3), lambda: E.full((2, 3), 7.0),
    lambda: E.randn(2, 3), lambda: E.rand(2, 3), lambda: E.empty_like(E.empty(2, 3)),
])
def test_factories_in_a_meta_device_block(make):
    with E.device("meta"):
        t = make()
    assert t.is_meta and t.shape == (2, 3) and t.dtype is E.float32
    assert not E.empty(1).is_meta  # the default comes back after the block


def test_factories_with_device_meta():
    assert E.arange(10, device="meta").shape == (10,) and E.arange(10, device="meta").dtype is E.int64
    assert E.ones(3, dtype=E.int32, device="meta").dtype is E.int32
    assert E.zeros_like(E.empty(2, 5), device="meta").is_meta
    assert E.empty(2, 3).to("meta").is_meta


@pytest.mark.parametrize("fn", [
    lambda x, y: x + 1,
    lambda x, y: x * y,
    lambda x, y: x.t() + 1,  # the transposed layout carries through
    lambda x, y: (x > 0),
    lambda x, y: x.sum(0),
    lambda x, y: x.mean(),
    lambda x, y: x @ y.t(),
    lambda x, y: x.to(E.float64),
    lambda x, y: x.argmax(1),
    lambda x, y: E.cat([x, y], 1),
    lambda x, y: x.reshape(12),
    lambda x, y: x.unsqueeze(1).expand(3, 2, 4),
    lambda x, y: x[1:, ::2],
    lambda x, y: E.where(x > 0, x, y),
    lambda x, y: x.sort(1)[1],
    lambda x, y: x.softmax(-1),
    lambda x, y: E.linalg.inv(x[:, :3]),  # zeros are singular: the geometry comes from identities
    lambda x, y: E.linalg.cholesky(x[:, :3]),
    lambda x, y: E.linalg.solve(x[:, :3], y),
])
def test_ops_on_meta_give_the_cpu_geometry(fn):
    x, y = E.randn(3, 4), E.randn(3, 4)
    x[:, :3] = E.eye(3) * 2  # positive definite
    on_cpu = fn(x, y)
    on_meta = fn(x.to("meta"), y.to("meta"))
    assert on_meta.is_meta
    assert (on_meta.shape, on_meta.dtype, on_meta.stride()) == (on_cpu.shape, on_cpu.dtype, on_cpu.stride())


@pytest.mark.parametrize("fn", [lambda x: x.nonzero(), lambda x: x[x > 0], lambda x: x.unique(),
                                lambda x: E.argwhere(x), lambda x: x.long().flatten().bincount()])
def test_ops_whose_shape_depends_on_values_refuse(fn):
    with pytest.raises(NotImplementedError, match=r"^(aten::\w+: attempted to run this operator with Meta tensors, "
                                                  r"but there was no fake impl|The register_meta function for "
                                                  r"torch\.nonzero\(\) raises unimplemented by default)"):
        fn(meta(3, 4))


def test_operands_that_do_not_broadcast_get_pytorchs_meta_message():
    with pytest.raises(RuntimeError, match=r"^Attempting to broadcast a dimension of length 4 at -2! Mismatching "
                                           r"argument at index 1 had .*Size\(\[4, 3\]\); but expected shape should "
                                           r"be broadcastable to \[2, 3\]$"):
        meta(2, 3) + meta(4, 3)
    with pytest.raises(RuntimeError, match=r"at -1! Mismatching argument at index 1 had .*Size\(\[2, 1, 4\]\); "
                                           r"but expected shape should be broadcastable to \[1, 1, 3\]$"):
        E.mul(meta(3), meta(2, 1, 4))


def test_advanced_indexing_with_a_meta_index_gives_the_shape():
    idx = E.empty(4, dtype=E.int64, device="meta")
    for got, want in ((meta(8, 3, 5)[:, idx], (8, 4, 5)), (meta(8, 3, 5)[idx], (4, 3, 5)),
                      (meta(8, 3, 5)[:, idx, idx], (8, 4))):
        assert got.is_meta and tuple(got.shape) == want


def test_pickle_keeps_geometry_and_shared_storage():
    x = meta(3, 4)
    a, b = pickle.loads(pickle.dumps((x, x.t())))
    assert a.is_meta and b.is_meta and b.stride() == (1, 4) and a.untyped_storage() is b.untyped_storage()


def test_meta_storage_is_not_shared_memory():
    x = meta(3)
    assert not x.is_shared()
    with pytest.raises(RuntimeError, match="^_share_fd_: only available on CPU$"):
        x.share_memory_()


def test_out_and_in_place_through_out_are_checked_as_on_the_cpu():
    x = meta(3, 1)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.add_(meta(3, 4))
    assert x.shape == (3, 1)
    out = meta(0)
    r = E.add(meta(3, 4), 1, out=out)
    assert r is out and out.is_meta and out.shape == (3, 4) and out.untyped_storage().nbytes == 48
    with pytest.raises(RuntimeError, match="^Expected out tensor to have device meta, but got cpu instead$"):
        E.add(meta(3), 1, out=E.empty(3))


def test_views_share_the_meta_storage():
    x = meta(3, 4)
    assert x[0].untyped_storage() is x.untyped_storage() and x[1].storage_offset() == 4


def test_shape_and_device_errors():
    with pytest.raises(RuntimeError, match="^Attempting to broadcast a dimension of length 5 at -1!"):
        meta(3, 4) + meta(5)
    # PyTorch's meta kernels: the first tensor's device is the expected one; a 0-dim CPU tensor goes along
    with pytest.raises(RuntimeError, match="^Tensor on device cpu is not on the expected device meta!$"):
        meta(3) + E.ones(3)
    with pytest.raises(RuntimeError, match="^Tensor on device meta is not on the expected device cpu!$"):
        E.ones(3) * meta(3)
    with pytest.raises(RuntimeError, match="^Tensor on device meta is not on the expected device cpu!$"):
        E.cat([E.ones(3), meta(3)])
    assert (meta(3) + E.tensor(1.0)).is_meta and (E.tensor(1.0) + meta(3)).is_meta


def test_index_ops_take_cpu_indices_into_meta_tensors():
    # PyTorch's meta kernels of the index ops never check the index's device: a meta model runs on CPU token ids
    w, ids = meta(20, 8), E.tensor([[1, 2, 3]])
    assert E.embedding(ids, w).is_meta and E.embedding(ids, w).shape == (1, 3, 8)
    assert w.index_select(0, ids[0]).shape == (3, 8) and w.take(ids[0]).is_meta
    z = E.zeros((2, 8), dtype=E.int64)
    assert w.gather(0, z).shape == (2, 8) and w.scatter(0, z, 1.0).is_meta
    assert w.scatter_add(0, z, meta(2, 8)).is_meta
    with pytest.raises(RuntimeError, match="^Tensor on device cpu is not on the expected device meta!$"):
        w.index_select(0, ids[0]) * E.ones(3, 8)  # float operands still refuse
    with pytest.raises(RuntimeError, match=r"^Expected tensor to have meta Device, but got tensor with cpu Device "
                                           r"\(while checking arguments for torch.take_along_dim\(\):\)$"):
        w.take_along_dim(z, 0)


def test_reading_values_raises_pytorchs_errors():
    x = meta(3, 4)
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        x[0, 0].item()
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        float(x[0, 0])
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        bool(x[0, 0])
    with pytest.raises(RuntimeError, match="a Tensor with 12 elements cannot be converted to Scalar"):
        x.item()
    with pytest.raises(NotImplementedError, match=f"^{NO_DATA}$"):
        x.tolist()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        x.numpy()
    for move in (lambda: x.to("cpu"), lambda: x.cpu(), lambda: E.zeros(3, 4).copy_(x)):
        with pytest.raises(NotImplementedError, match=f"^{NO_DATA}$"):
            move()
    assert x.copy_(E.zeros(3, 4)) is x  # into meta: nothing to copy


def test_repr_as_pytorch():
    assert repr(meta(3, 4)) == "tensor(..., device='meta', size=(3, 4))"
    assert repr(meta()) == "tensor(..., device='meta', size=())"
    assert repr(meta(3, dtype=E.int64)) == "tensor(..., device='meta', size=(3,), dtype=ember.int64)"
    assert repr(meta(2, dtype=E.bool)) == "tensor(..., device='meta', size=(2,), dtype=ember.bool)"


def test_device_string():
    assert E.device("meta").index is None and repr(E.device("meta")) == "device(type='meta')"
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, ipu, xpu, mkldnn, .*, privateuseone device "
                                           "type at start of device string: tpu$"):
        E.device("tpu")


@pytest.mark.torch
def test_repr_and_errors_match_torch():
    torch = pytest.importorskip("torch")
    t = torch.empty(3, 4, device="meta")
    assert repr(t) == repr(meta(3, 4))
    with pytest.raises(NotImplementedError, match=f"^{NO_DATA}$"):
        t.to("cpu")
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        t[0, 0].item()
    assert (t.t() + 1).stride() == (meta(3, 4).t() + 1).stride()


@pytest.mark.parametrize(("call", "name"), [
    (lambda m, i, s: m.index_add(0, i, s), "index_add"), (lambda m, i, s: m.index_copy(0, i, s), "index_copy"),
    (lambda m, i, s: m.index_fill(0, i, 1.0), "index_copy")])  # PyTorch's index_fill says index_copy
def test_index_ops_of_meta_self_and_a_cpu_index_name_each_device(call, name):
    m, s = E.empty(4, 3, device="meta"), E.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match=f"^{name}\\(\\): self, index and source expected to be in the same device, "
                                           "but got \\(self\\) meta, \\(index\\) cpu, and \\(source\\) meta$"):
        call(m, E.tensor([0, 2]), s)


def test_masked_fill_expects_its_masks_device():
    with pytest.raises(RuntimeError, match="^Tensor on device meta is not on the expected device cpu!$"):
        E.empty(4, 3, device="meta").masked_fill(E.zeros(4, 3, dtype=E.bool), 1.0)
    with pytest.raises(RuntimeError, match="^Tensor on device cpu is not on the expected device meta!$"):
        E.zeros(4, 3).masked_fill(E.zeros(4, 3, dtype=E.bool, device="meta"), 1.0)

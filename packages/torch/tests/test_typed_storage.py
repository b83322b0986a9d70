"""Tensor.storage() and the legacy typed storages: a dtype's view of the tensor's bytes, with PyTorch's
deprecation warning (once a process)."""

import warnings

import pytest

import ember.torch as torch
from ember.torch import _typed_storage


@pytest.fixture(autouse=True)
def fresh_warning(monkeypatch):
    monkeypatch.setattr(_typed_storage, "_warned", [False])


def test_tensor_storage_views_the_bytes_with_the_deprecation_warning():
    x = torch.arange(4.0)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = x.storage()
    assert isinstance(s, torch.FloatStorage) and isinstance(s, torch.TypedStorage)
    assert s.dtype is torch.float32 and s.size() == len(s) == 4 and s.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert s.data_ptr() == x.data_ptr() and s.element_size() == 4 and s.nbytes() == 16 and s[1] == 1.0
    assert s.untyped() is x.untyped_storage() and x.storage_type() is torch.FloatStorage
    x[0] = 7.0
    assert s[0] == 7.0


def test_typed_storages_allocate():
    with pytest.warns(UserWarning):
        assert torch.FloatStorage(3).size() == 3
        assert torch.LongStorage([1, 2]).tolist() == [1, 2]
        assert torch.TypedStorage(3, dtype=torch.float64).element_size() == 8


def test_complex_typed_storages_and_fatal_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = torch.tensor([1 + 2j, 3 - 1j])
        s = z.storage()
        assert isinstance(s, torch.ComplexFloatStorage) and s.size() == 2 and s.dtype is torch.complex64
        assert z.double().cdouble().storage_type() is torch.ComplexDoubleStorage
    assert issubclass(torch.FatalError, Exception)


def test_the_deprecation_warns_once_a_process_and_storages_are_storages():
    x = torch.arange(4.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = x.storage()
        torch.FloatStorage(2)
        x.storage()
    assert [(i.category, i.filename) for i in w] == [(UserWarning, __file__)]
    assert torch.is_storage(s) and torch.is_storage(x.untyped_storage()) and not torch.is_storage(x)


def test_set_default_tensor_type_warns_once():
    from ember.core.ops import _util

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _util._warned_once.discard(next((m for m in _util._warned_once if "set_default_tensor_type" in m), ""))
        try:
            torch.set_default_tensor_type(torch.DoubleTensor)
            assert torch.tensor([1.0]).dtype is torch.float64
            torch.set_default_tensor_type("torch.FloatTensor")
        finally:
            torch.set_default_dtype(torch.float32)
    assert [str(i.message) for i in w] == [
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and "
        "torch.set_default_device() as alternatives. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/tensor/"
        "python_tensor.cpp:434.)"]


def test_a_typed_storage_is_a_typedstorage_that_isinstance_matches_by_dtype():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s, legacy = torch.arange(4.0).storage(), torch.FloatStorage([1, 2])
    for st in (s, legacy):
        assert type(st) is torch.TypedStorage
        assert isinstance(st, torch.FloatStorage) and not isinstance(st, torch.DoubleStorage)
    assert repr(legacy) == f" 1.0\n 2.0\n[torch.storage.TypedStorage(dtype={torch.float32}, device=cpu) of size 2]"
    assert torch.FloatStorage.dtype is torch.float32 and issubclass(torch.FloatStorage, torch.TypedStorage)


def test_typed_storage_casts_copy_and_name_their_legacy_class():
    x = torch.arange(4.0)
    s = x.storage()
    assert s.type() == "torch.FloatStorage" and torch.tensor([1]).storage().type() == "torch.LongStorage"
    assert s.pickle_storage_type() == "FloatStorage"
    d = s.double()
    assert d.dtype is torch.float64 and d.tolist() == [0.0, 1.0, 2.0, 3.0] and d.data_ptr() != s.data_ptr()
    f = s.float()
    assert f is not s and f.data_ptr() != s.data_ptr() and f.tolist() == s.tolist()
    assert s.bool().tolist() == [False, True, True, True] and s.complex_double().dtype is torch.complex128
    assert s.type("torch.ByteStorage").tolist()[4:8] == [0, 0, 128, 63]  # PyTorch's: one element per byte
    with pytest.raises(RuntimeError, match="^size does not match, self was 64 bytes but src was 16 bytes$"):
        s.type(torch.IntStorage)


def test_typed_storage_writes_reach_the_tensor_and_copy_checks_bytes():
    x = torch.arange(4.0)
    s = x.storage()
    assert s.fill_(2.0) is s and x.tolist() == [2.0] * 4
    s[0] = 5
    s.copy_(torch.FloatStorage([5, 6, 7, 8]))
    assert x.tolist() == [5.0, 6.0, 7.0, 8.0]
    with pytest.raises(RuntimeError, match="^size does not match, self was 16 bytes but src was 8 bytes$"):
        s.copy_(torch.FloatStorage([1, 2]))
    with pytest.raises(RuntimeError, match="^slices are only supported in UntypedStorage.__getitem__$"):
        s[0:2]
    c = s.clone()
    assert c.data_ptr() != s.data_ptr() and c.tolist() == s.tolist()
    assert s._untyped_storage is x.untyped_storage() and s.cpu().data_ptr() == s.data_ptr()
    assert not s.is_shared() and s.share_memory_() is s and x.is_shared()
    assert s.get_device() is None and not s.is_cuda and not s.is_pinned()


def test_set_onto_a_typed_storage_and_storage_identity():
    src = torch.FloatStorage([1, 2, 3, 4])
    assert torch.empty(0).set_(src).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert torch.empty(0).set_(src, 1, (2,), (2,)).tolist() == [2.0, 4.0]
    x = torch.arange(3.0)
    assert x.untyped_storage()._cdata == x[1:].untyped_storage()._cdata
    assert x.untyped_storage()._cdata != x.clone().untyped_storage()._cdata
    assert torch.FloatStorage.from_buffer(b"\x00\x00\x80\x3f", "little").tolist() == [1.0]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_constructors_take_a_typed_storage_sharing_its_memory():
    s = torch.FloatStorage([1, 2])
    t, u = torch.FloatTensor(s), torch.tensor(s)
    t[0], u[1] = 9, 7
    assert s.tolist() == [9.0, 7.0] and t.tolist() == u.tolist() == [9.0, 7.0] and t.dtype is torch.float32
    with pytest.raises(RuntimeError, match=r"^Expected a Storage of type Float or an UntypedStorage, but got type "
                                           r"Double for argument 1 'storage'$"):
        torch.FloatTensor(torch.DoubleStorage([1.0]))
    with pytest.raises(RuntimeError, match="^Expected a Storage of type Double or an UntypedStorage, but got Float$"):
        torch.tensor(s, dtype=torch.float64)
    assert torch.tensor(s, requires_grad=True).requires_grad

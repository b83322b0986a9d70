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
        "torch.set_default_device() as alternatives."]

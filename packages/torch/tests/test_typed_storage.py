"""Tensor.storage() and the legacy typed storages: a dtype's view of the tensor's bytes, with PyTorch's
deprecation warning."""

import pytest

import ember.torch as torch


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
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = torch.tensor([1 + 2j, 3 - 1j])
        s = z.storage()
        assert isinstance(s, torch.ComplexFloatStorage) and s.size() == 2 and s.dtype is torch.complex64
        assert z.double().cdouble().storage_type() is torch.ComplexDoubleStorage
    assert issubclass(torch.FatalError, Exception)

"""`Tensor.view(dtype)`: the same bytes read as another dtype, a view sharing storage. A different
element size scales the last dim (PyTorch's rules: that dim dense, the rest divisible); values are
numpy's `.view()` bit patterns, geometry and refusals are PyTorch 2.13's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.core as E

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "complex32"]


# complex32's "experimental" warning at its first use in the process
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")


def _dt(name):
    return getattr(E, name)


def _bytes(n=64, seed=0):
    """Random bytes with every bool byte 0 or 1 (the only bool bytes either library reads back)."""
    return np.random.default_rng(seed).integers(0, 256, size=n, dtype=np.uint8)


@pytest.mark.parametrize("dst", NAMES)
@pytest.mark.parametrize("src", NAMES)
def test_bits_are_numpys_view(src, dst):
    s, d = _dt(src), _dt(dst)
    raw = _bytes() if "bool" not in (src, dst) else _bytes() % 2
    a = raw.view(s.np).reshape(2, -1)
    x = E.from_numpy(a.copy())
    v = x.view(d)
    expected = a.view(d.np)
    assert v.dtype is d and v.shape == expected.shape
    assert v.stride() == tuple(st // d.itemsize for st in expected.strides)
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert v._np().tobytes() == expected.tobytes()


def test_writes_through_and_shares_the_version():
    x = E.zeros(2, 4)
    v = x.view(E.int16)
    assert v.shape == (2, 8) and v.stride() == (8, 1)
    v[1, 2:4] = E.tensor([0, 16256], dtype=E.int16)  # float32 1.0, little-endian halves
    assert x[1, 1].item() == 1.0 and x._version == v._version
    x.view(E.float64)[0, 1] = 2.0
    np.testing.assert_array_equal(x.numpy()[0, 2:].view(np.float64), [2.0])


# (shape, strides, offset, dtype) of the input -> PyTorch's (shape, strides, offset) of the view
GEOMETRY = [
    ((3, 4), (4, 1), 0, "float32", "int16", (3, 8), (8, 1), 0),
    ((3, 4), (4, 1), 0, "float32", "complex128", (3, 1), (1, 1), 0),
    ((4, 3), (1, 4), 0, "float32", "int32", (4, 3), (1, 4), 0),
    ((2, 2), (4, 1), 6, "float32", "float64", (2, 1), (2, 1), 3),
    ((2, 4), (6, 1), 0, "float32", "int16", (2, 8), (12, 1), 0),
    ((2, 3, 16), (0, 16, 1), 0, "uint8", "complex128", (2, 3, 1), (0, 1, 1), 0),
    ((3, 16), (0, 1), 0, "uint8", "complex128", (3, 1), (0, 1), 0),
    ((3, 1, 4), (4, 4, 1), 0, "uint8", "int32", (3, 1, 1), (1, 1, 1), 0),
    ((0, 4), (4, 1), 0, "float32", "float64", (0, 2), (2, 1), 0),
    ((2, 2), (4, 1), 4, "uint8", "int16", (2, 1), (2, 1), 2),
    ((3,), (1,), 1, "float32", "uint8", (12,), (1,), 4),
]


@pytest.mark.parametrize("shape,strides,offset,src,dst,vshape,vstrides,voffset", GEOMETRY)
def test_geometry_is_pytorchs(shape, strides, offset, src, dst, vshape, vstrides, voffset):
    base = E.zeros(64, dtype=getattr(E, src))
    v = base.as_strided(shape, strides, offset).view(getattr(E, dst))
    assert (tuple(v.shape), v.stride(), v.storage_offset()) == (vshape, vstrides, voffset)


# (shape, strides, offset, dtype) of the input -> PyTorch's message
REFUSED = [
    ((), (), 0, "float32", "int16", "self.dim() cannot be 0 to view Float as Short (different element sizes)"),
    ((), (), 0, "float32", "float64", "self.dim() cannot be 0 to view Float as Double (different element sizes)"),
    ((4, 3), (1, 4), 0, "float32", "int16",
     "self.stride(-1) must be 1 to view Float as Short (different element sizes), but got 4"),
    ((3, 3), (4, 1), 0, "float32", "float64",
     "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3"),
    ((2, 2), (4, 1), 1, "float32", "float64",
     "self.storage_offset() must be divisible by 2 to view Float as Double (different element sizes), but got 1"),
    ((2, 2), (3, 2), 1, "float32", "float64",
     "self.storage_offset() must be divisible by 2 to view Float as Double (different element sizes), but got 1"),
    ((2, 2), (3, 2), 0, "float32", "float64",
     "self.stride(-1) must be 1 to view Float as Double (different element sizes), but got 2"),
    ((2, 4), (3, 1), 0, "float32", "float64",
     "self.stride(0) must be divisible by 2 to view Float as Double (different element sizes), but got 3"),
    ((3, 0), (1, 1), 0, "float32", "float64",
     "self.stride(0) must be divisible by 2 to view Float as Double (different element sizes), but got 1"),
    ((3, 16), (1, 0), 0, "uint8", "complex128",
     "self.stride(-1) must be 1 to view Byte as ComplexDouble (different element sizes), but got 0"),
    ((3, 4, 4), (20, 5, 1), 0, "uint8", "int32",
     "self.stride(1) must be divisible by 4 to view Byte as Int (different element sizes), but got 5"),
    ((2, 2), (2, 1), 0, "bool", "float8_e5m2", None),
    ((2, 3), (3, 1), 0, "float8_e4m3fn", "int16",
     "self.size(-1) must be divisible by 2 to view Float8_e4m3fn as Short (different element sizes), but got 3"),
]


@pytest.mark.parametrize("shape,strides,offset,src,dst,message", REFUSED)
def test_refusals_are_pytorchs(shape, strides, offset, src, dst, message):
    x = E.zeros(64, dtype=getattr(E, src)).as_strided(shape, strides, offset)
    if message is None:
        assert x.view(getattr(E, dst)).dtype is getattr(E, dst)
        return
    with pytest.raises(RuntimeError) as info:
        x.view(getattr(E, dst))
    assert str(info.value) == message


def test_zero_dim_same_size_is_fine():
    v = E.tensor(1.0).view(E.int32)
    assert v.shape == () and v.item() == 1065353216


def test_signalling_nan_bits_print_as_nan_without_a_numpy_warning():
    """0x7f800001 read as float32 is a signalling NaN; widening it to format the print raised numpy's
    "invalid value encountered in cast", which PyTorch's print never says."""
    x = E.tensor([0x7FC00001, 0x7F800001, 1], dtype=E.int32).view(E.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(x) == "tensor([       nan,        nan, 1.4013e-45])"


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_cuda_views_read_the_same_bits():
    raw = _bytes(24)
    x = E.from_numpy(raw.copy()).to("cuda")
    for name in ("int16", "float32", "float64", "int64", "complex64"):
        d = _dt(name)
        v = x.view(d)
        assert v.device.type == "cuda" and v.untyped_storage() is x.untyped_storage()
        np.testing.assert_array_equal((v + 0).cpu().numpy() if d.is_floating_point or d.is_complex
                                      else v.cpu().numpy(), raw.view(d.np))
    # a view of wider elements over a storage whose size they do not divide (6 bytes read as int32)
    w = E.from_numpy(raw[:6].copy()).to("cuda")[:4].view(E.int32)
    assert (w + 1).cpu().item() == int(raw[:4].view(np.int32)[0]) + 1
    f = E.arange(8, dtype=E.float32, device="cuda").view(E.float64).view(E.float32)
    np.testing.assert_array_equal(f.cpu().numpy(), np.arange(8, dtype=np.float32))


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    cases = [(s[0], s[1], s[2], s[3], s[4]) for s in GEOMETRY] + [r[:5] for r in REFUSED]
    for shape, strides, offset, src, dst in cases:
        tb = torch.zeros(64, dtype=getattr(torch, src)).as_strided(shape, strides, offset)
        eb = E.zeros(64, dtype=getattr(E, src)).as_strided(shape, strides, offset)
        try:
            t = tb.view(getattr(torch, dst))
        except RuntimeError as te:
            with pytest.raises(RuntimeError) as ee:
                eb.view(getattr(E, dst))
            assert str(ee.value) == str(te)
            continue
        e = eb.view(getattr(E, dst))
        assert (tuple(e.shape), e.stride(), e.storage_offset()) == (tuple(t.shape), t.stride(), t.storage_offset())


def test_dtype_keyword_and_python_types():
    x = E.ones(2, 4)
    assert x.view(dtype=E.int16).shape == (2, 8)
    assert x.view(float).dtype is E.float64 and x.view(float).shape == (2, 2)  # Python's float is double
    assert x.view(int).dtype is E.int64
    with pytest.raises(TypeError, match=r"view\(\) received an invalid combination of arguments - got \(str\)"):
        x.view("float64")  # PyTorch's words: a string is neither overload's argument
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        x.view(dtype="float64")
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        x.view(-1, dtype=E.int16)

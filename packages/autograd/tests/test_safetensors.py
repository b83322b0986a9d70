"""safetensors through the `safetensors` library: every dtype ember shares with the format
(bfloat16 included) round trips, metadata is kept, files the library writes load and files
ember writes load in the library (and in `safetensors.torch` where PyTorch is installed)."""

import json
import struct

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy as lib_np

import ember.autograd as E
from ember.autograd import safetensors as st
from ember.autograd.safetensors import SafetensorError

DTYPES = [E.bool, E.uint8, E.int8, E.int16, E.int32, E.int64, E.float16, E.bfloat16, E.float32, E.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_every_dtype_round_trips(tmp_path, dtype):
    t = E.arange(-3, 9).view(3, 4).to(dtype)
    p = tmp_path / "m.safetensors"
    st.save_file({"t": t, "view": t[:, 1]}, p, metadata={"format": "pt"})
    out = st.load_file(p)
    assert out["t"].dtype is dtype and out["t"].shape == (3, 4)
    np.testing.assert_array_equal(out["t"].float().numpy(), t.float().numpy())
    np.testing.assert_array_equal(out["view"].float().numpy(), t[:, 1].float().numpy())
    assert st.metadata_of(p) == {"format": "pt"}


def test_header_names_the_formats_dtype_codes():
    data = st.save({"b": E.ones(2, dtype=E.bfloat16), "f": E.ones(1)}, metadata={"k": "v"})
    (n,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8:8 + n])
    assert header["__metadata__"] == {"k": "v"}
    assert header["b"]["dtype"] == "BF16" and header["f"]["dtype"] == "F32"


def test_files_of_the_library_load_and_ours_load_in_it(tmp_path):
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3),
              "h": np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)}
    p = tmp_path / "lib.safetensors"
    lib_np.save_file(arrays, str(p), metadata={"a": "b"})
    out = st.load_file(p)
    assert out["h"].dtype is E.bfloat16 and out["h"].float().tolist() == [1.5, -2.0]
    np.testing.assert_array_equal(out["w"].numpy(), arrays["w"])
    back = lib_np.load(st.save({"x": E.tensor([[1, 2], [3, 4]], dtype=E.int16)}))
    np.testing.assert_array_equal(back["x"], [[1, 2], [3, 4]])
    assert back["x"].dtype == np.int16


def test_loaded_tensors_own_writable_memory():
    out = st.load(st.save({"w": E.zeros(3)}))
    out["w"][1] = 5.0
    assert out["w"].tolist() == [0.0, 5.0, 0.0]


def test_dtype_ember_lacks_is_named():
    h = json.dumps({"u": {"dtype": "F6_E3M2", "shape": [2], "data_offsets": [0, 4]}}).encode()
    h += b" " * (-len(h) % 8)
    with pytest.raises(SafetensorError, match="unsupported dtype F6_E3M2 .*ember does not have"):
        st.load(struct.pack("<Q", len(h)) + h + b"\0" * 4, _name="f6.safetensors")


def test_unsigned_and_float8_round_trip(tmp_path):
    xs = {"u16": E.tensor([1, 65535], dtype=E.uint16), "u64": E.tensor([2**64 - 1], dtype=E.uint64),
          "f8": E.tensor([1.0, 448.0]).to(E.float8_e4m3fn), "e5": E.tensor([0.25, 4.0]).to(E.float8_e5m2)}
    st.save_file(xs, str(tmp_path / "x.safetensors"))
    out = st.load_file(str(tmp_path / "x.safetensors"))
    for k, v in xs.items():
        assert out[k].dtype is v.dtype
        assert out[k].view(E.uint8).numpy().tobytes() == v.view(E.uint8).numpy().tobytes()  # numpy has no float8
    from ember.core.ops import restricted_dtypes

    restricted_dtypes.uninstall()


def test_library_errors_are_wrapped(monkeypatch):
    import safetensors as lib

    def refuse(data):
        raise lib.SafetensorError("Error while deserializing header: simulated")

    monkeypatch.setattr(lib, "deserialize", refuse)
    with pytest.raises(SafetensorError, match=r"load: x\.safetensors: file: .*library refuses it.*simulated"):
        st.load(st.save({"w": E.ones(1)}), _name="x.safetensors")


def test_bad_arguments_to_save():
    with pytest.raises(TypeError, match="dict mapping str to Tensor"):
        st.save({"w": np.ones(2)})
    with pytest.raises(TypeError, match="metadata must map str to str"):
        st.save({"w": E.ones(1)}, metadata={"n": 1})


@pytest.mark.torch
def test_round_trips_with_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch")
    lib_torch = pytest.importorskip("safetensors.torch")
    p = tmp_path / "t.safetensors"
    lib_torch.save_file({"bf": torch.tensor([0.1, 3.0]).bfloat16(), "i": torch.arange(4)}, str(p),
                        metadata={"framework": "pt"})
    out = st.load_file(p)
    assert out["bf"].dtype is E.bfloat16
    assert out["bf"].float().tolist() == torch.tensor([0.1, 3.0]).bfloat16().float().tolist()
    assert out["i"].tolist() == [0, 1, 2, 3] and st.metadata_of(p) == {"framework": "pt"}
    st.save_file({"bf": E.tensor([0.1, 3.0]).bfloat16(), "m": E.eye(2)}, p)
    back = lib_torch.load_file(str(p))
    assert back["bf"].dtype is torch.bfloat16 and back["bf"].tolist() == out["bf"].float().tolist()
    assert back["m"].tolist() == [[1.0, 0.0], [0.0, 1.0]]

"""`save` writes PyTorch's zip format: its records, alignment and pickle globals checked here
without PyTorch, and round trips both ways against PyTorch (state dicts, views, bfloat16,
Parameters); the pre-1.6 format is refused with an error that names it."""

import io
import pickle
import pickletools
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd.checkpoint_io import CheckpointError


def _saved(obj, name=None, tmp_path=None) -> bytes:
    if name is None:
        buf = io.BytesIO()
        E.save(obj, buf)
        return buf.getvalue()
    p = tmp_path / name
    E.save(obj, p)
    return p.read_bytes()


def _globals(pkl: bytes) -> list[str]:
    return [arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"]


def test_records_and_their_alignment(tmp_path):
    data = _saved(OrderedDict(w=E.ones(2, 3), b=E.arange(3.0)), "model.pt", tmp_path)
    z = zipfile.ZipFile(io.BytesIO(data))
    names = z.namelist()
    assert names == ["model/data.pkl", "model/.format_version", "model/.storage_alignment", "model/byteorder",
                     "model/data/0", "model/data/1", "model/version"]
    assert z.read("model/byteorder") == b"little" and z.read("model/version") == b"3\n"
    assert z.read("model/.format_version") == b"1"
    for info in z.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        start = info.header_offset + 30 + len(info.filename) + int.from_bytes(
            data[info.header_offset + 28:info.header_offset + 30], "little")
        assert start % 64 == 0, info.filename
    np.testing.assert_array_equal(np.frombuffer(z.read("model/data/1"), np.float32), [0, 1, 2])


def test_pickle_names_pytorchs_globals_only():
    import ember.nn as nn

    p = nn.Parameter(E.ones(2))
    obj = {"sd": OrderedDict(w=E.ones(2).bfloat16()), "p": p, "dt": E.float16, "dev": E.device("cpu"),
           "size": E.Size([2, 3]), "n": [1, 2.5, None, True, "s"]}
    pkl = zipfile.ZipFile(io.BytesIO(_saved(obj))).read("archive/data.pkl")
    assert pkl[:2] == b"\x80\x02"  # protocol 2, as torch.save
    assert set(_globals(pkl)) == {"collections OrderedDict", "torch._utils _rebuild_tensor_v2",
                                  "torch._utils _rebuild_parameter", "torch BFloat16Storage", "torch FloatStorage",
                                  "torch float16", "torch device", "torch Size"}
    pids = [arg for op, arg, _ in pickletools.genops(pkl) if op.name == "BINUNICODE"]
    assert "storage" in pids and "cpu" in pids


def test_round_trip_through_the_zip_format():
    base = E.arange(12.0).view(3, 4)
    obj = {"views": [base, base[1], base[:, 2]], "bf": E.tensor([1.5, -2.25]).bfloat16(),
           "g": E.ones(2, requires_grad=True), "size": E.Size([2]), "dt": E.bfloat16, "step": 7}
    buf = io.BytesIO(_saved(obj))
    assert buf.getvalue()[:4] == b"PK\x03\x04"
    out = E.load(buf)
    assert out["views"][1]._storage is out["views"][0]._storage and out["views"][2].stride() == (4,)
    assert out["bf"].dtype is E.bfloat16 and out["bf"].float().tolist() == [1.5, -2.25]
    assert out["g"].requires_grad and out["g"].is_leaf
    assert out["size"] == (2,) and out["dt"] is E.bfloat16 and out["step"] == 7


def test_objects_outside_the_format_fall_back_to_embers():
    assert _saved({"w": E.ones(1), "o": range(3)})[:8] == b"EMBERCKP"
    st = E.ones(2)
    assert _saved([st, st.view(E.int32)])[:8] == b"EMBERCKP"  # one storage seen as two dtypes


def test_numpy_scalars_are_written_as_python_numbers():
    data = _saved({"acc": np.float32(0.5), "epoch": np.int64(3), "ok": np.bool_(True)})
    assert data[:4] == b"PK\x03\x04"
    pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    assert _globals(pkl) == [] and pickle.loads(pkl) == {"acc": 0.5, "epoch": 3, "ok": True}
    out = E.load(io.BytesIO(data))
    assert out == {"acc": 0.5, "epoch": 3, "ok": True} and type(out["epoch"]) is int


def test_legacy_pytorch_file_is_named_in_the_error(tmp_path):
    p = tmp_path / "old.pt"
    p.write_bytes(b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03.")
    with pytest.raises(CheckpointError, match="legacy format .*before PyTorch 1.6"):
        E.load(p)


def test_bfloat16_storage_of_a_pytorch_file_loads():
    # the pickle PyTorch writes for {"b": tensor([1., 2.], dtype=bfloat16)}, opcode by opcode
    pkl = (b"\x80\x02}X\x01\x00\x00\x00bctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\n"
           b"BFloat16Storage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x02tQK\x00K\x02\x85K\x01\x85\x89"
           b"ccollections\nOrderedDict\n)RtRs.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("t/data.pkl", pkl)
        z.writestr("t/data/0", np.array([1.0, 2.0], np.float32).view(np.uint16)[1::2].tobytes())
    out = E.load(io.BytesIO(buf.getvalue()))
    assert out["b"].dtype is E.bfloat16 and out["b"].float().tolist() == [1.0, 2.0]


@pytest.mark.torch
def test_pytorch_loads_what_ember_saves(tmp_path):
    torch = pytest.importorskip("torch")
    import ember.nn as nn

    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    base = E.arange(12.0).view(3, 4)
    obj = {"model": model.state_dict(), "t": E.arange(5), "nested": [(base[1], {"c": base[:, 2]})],
           "bf": E.tensor([1.5, 3.140625]).bfloat16(), "p": nn.Parameter(E.ones(2)), "dt": E.float16,
           "size": E.Size([4])}
    p = tmp_path / "ckpt.pt"
    E.save(obj, p)
    out = torch.load(p, weights_only=True)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    tm.load_state_dict(out["model"])
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(tm(torch.from_numpy(x)).detach().numpy(), model(E.from_numpy(x)).detach().numpy(),
                               rtol=1e-6)
    assert out["t"].dtype is torch.int64 and out["t"].tolist() == [0, 1, 2, 3, 4]
    row, d = out["nested"][0]
    assert row.tolist() == [4.0, 5.0, 6.0, 7.0] and d["c"].tolist() == [2.0, 6.0, 10.0] and d["c"].stride() == (4,)
    assert row.untyped_storage().data_ptr() == d["c"].untyped_storage().data_ptr()
    assert out["bf"].dtype is torch.bfloat16 and out["bf"].tolist() == [1.5, 3.140625]
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].requires_grad
    assert out["dt"] is torch.float16 and out["size"] == torch.Size([4])
    assert torch.load(p, weights_only=True, mmap=True)["bf"].tolist() == [1.5, 3.140625]  # aligned records


@pytest.mark.torch
def test_ember_loads_what_pytorch_saves(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "t.pt"
    base = torch.arange(6.0).view(2, 3)
    torch.save({"bf": torch.tensor([0.1, 7.0]).bfloat16(), "v": [base, base.t()], "dt": torch.bfloat16,
                "dev": torch.device("cpu"), "size": torch.Size([1, 2]), "p": torch.nn.Parameter(torch.ones(1))}, p)
    out = E.load(p)
    assert out["bf"].dtype is E.bfloat16
    assert out["bf"].float().tolist() == torch.tensor([0.1, 7.0]).bfloat16().float().tolist()
    assert out["v"][1]._storage is out["v"][0]._storage and out["v"][1].tolist() == base.t().tolist()
    assert out["dt"] is E.bfloat16 and out["dev"] == E.device("cpu") and out["size"] == (1, 2)
    assert out["p"].requires_grad
    torch.save({"a": torch.ones(2)}, p, _use_new_zipfile_serialization=False)
    with pytest.raises(pickle.UnpicklingError, match="legacy format"):
        E.load(p)

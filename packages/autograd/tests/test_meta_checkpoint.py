"""Meta tensors in checkpoints: saved as their geometry (no data), loaded as meta, in PyTorch's format."""

import io
import zipfile

import pytest

import ember.autograd as torch


def _roundtrip(obj, **load_kwargs):
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue(), torch.load(io.BytesIO(b.getvalue()), **load_kwargs)


def test_meta_tensors_save_no_data_and_load_as_meta():
    x = torch.empty(10**12, device="meta")
    data, d = _roundtrip({"x": x, "xt": x.view(10**6, 10**6).t(), "c": torch.ones(2)})
    assert len(data) < 10**5
    names = [i.filename for i in zipfile.ZipFile(io.BytesIO(data)).infolist() if "/data/" in i.filename]
    assert len(names) == 1  # only the CPU tensor's bytes
    assert d["x"].is_meta and d["x"].shape == (10**12,)
    assert d["xt"].is_meta and d["xt"].shape == (10**6, 10**6) and d["xt"].stride() == (1, 10**6)
    assert d["c"].tolist() == [1.0, 1.0]


def test_meta_stays_meta_whatever_map_location():
    _, d = _roundtrip({"x": torch.empty(3, 4, device="meta", dtype=torch.float64)}, map_location="cpu")
    assert d["x"].is_meta and d["x"].dtype is torch.float64 and d["x"].shape == (3, 4)


def test_load_with_map_location_meta_gives_shapes_only():
    _, d = _roundtrip({"w": torch.ones(2, 3)}, map_location="meta")
    assert d["w"].is_meta and d["w"].shape == (2, 3)


@pytest.mark.torch
def test_meta_checkpoints_interoperate_with_torch():
    real = pytest.importorskip("torch")
    b = io.BytesIO()
    real.save({"x": real.empty(3, 4, device="meta"), "y": real.ones(2)}, b)
    d = torch.load(io.BytesIO(b.getvalue()))
    assert d["x"].is_meta and d["x"].shape == (3, 4) and d["y"].tolist() == [1.0, 1.0]
    b = io.BytesIO()
    torch.save({"x": torch.empty(2, 5, device="meta", requires_grad=True)}, b)
    t = real.load(io.BytesIO(b.getvalue()))["x"]
    assert t.is_meta and tuple(t.shape) == (2, 5) and t.requires_grad


def test_embers_own_format_keeps_meta_storages_shared():
    from ember.autograd import serialization

    x = torch.empty(10**12, device="meta")
    data = b"".join(serialization._serialize({"x": x, "xt": x.view(10**6, 10**6).t()}))
    assert len(data) < 10**4
    d = serialization.load(io.BytesIO(data), map_location="cpu")
    assert d["x"].is_meta and d["xt"].stride() == (1, 10**6)
    assert d["xt"].untyped_storage() is d["x"].untyped_storage()

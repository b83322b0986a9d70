"""uint16/32/64 and float8 tensors in PyTorch's checkpoint format: written as PyTorch writes them (an
UntypedStorage of bytes and `_rebuild_tensor_v3` with the dtype), read back by ember and by PyTorch."""

import pytest

import ember.autograd as E
from ember.core.ops import restricted_dtypes


@pytest.fixture(autouse=True)
def _no_guard_after():
    yield
    restricted_dtypes.uninstall()


def _tensors():
    return {"u16": E.tensor([1, 2, 65535], dtype=E.uint16), "u32": E.tensor([7], dtype=E.uint32),
            "u64": E.tensor([2**64 - 1], dtype=E.uint64), "f8": E.tensor([1.0, 448.0]).to(E.float8_e4m3fn),
            "e5": E.tensor([0.25, -3.0]).to(E.float8_e5m2), "f": E.ones(2)}


def test_round_trip_keeps_dtype_and_bytes(tmp_path):
    xs = _tensors()
    E.save(xs, tmp_path / "a.pt")
    out = E.load(tmp_path / "a.pt")
    for k, v in xs.items():
        # bytes through a uint8 view: `.numpy()` refuses float8, as PyTorch's (numpy has no such dtype)
        assert out[k].dtype is v.dtype and out[k].view(E.uint8).numpy().tobytes() == v.view(E.uint8).numpy().tobytes()


@pytest.mark.torch
def test_pytorch_reads_ember_and_ember_reads_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    xs = _tensors()
    E.save(xs, tmp_path / "a.pt")
    theirs = torch.load(tmp_path / "a.pt")
    for k, v in xs.items():
        assert str(theirs[k].dtype) == f"torch.{v.dtype.name}"
        assert theirs[k].view(torch.uint8).numpy().tobytes() == v.view(E.uint8).numpy().tobytes()
    torch.save({"u32": torch.tensor([1, 7], dtype=torch.uint32),
                "f8": torch.tensor([1.0, 3.0]).to(torch.float8_e5m2)}, tmp_path / "b.pt")
    mine = E.load(tmp_path / "b.pt")
    assert mine["u32"].dtype is E.uint32 and mine["u32"].tolist() == [1, 7]
    assert mine["f8"].dtype is E.float8_e5m2 and mine["f8"].float().tolist() == [1.0, 3.0]

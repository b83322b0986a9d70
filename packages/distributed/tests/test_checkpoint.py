"""torch.distributed.checkpoint in one process: round trips, PyTorch's errors, the directory's safety, and the
state_dict helpers against the optimizer's own state (multi-rank: test_checkpoint_jobs.py)."""

import io
import os
import pickle
import pickletools

import numpy as np
import pytest

import ember.autograd as torch
import ember.distributed.checkpoint as dcp
import ember.nn as nn
import ember.optim as optim
from ember.autograd import serialization
from ember.distributed.checkpoint import _pytorch_metadata
from ember.distributed.checkpoint import state_dict as dsd
from ember.distributed.checkpoint.metadata import MetadataIndex, _StorageInfo
from ember.distributed.checkpoint.stateful import Stateful

pytestmark = pytest.mark.filterwarnings("ignore:torch.distributed is disabled")


def _saved(tmp_path):
    torch.manual_seed(0)
    sd = {"w": torch.randn(2, 3), "opt": {"step": 7, "lr": 0.5, "hist": [1, 2], "ids": torch.arange(4)},
          "layers": [torch.ones(2), torch.zeros(1, dtype=torch.float64)], "name": "run-1"}
    md = dcp.save(sd, checkpoint_id=tmp_path / "ck")
    return sd, md


def test_round_trip_fills_tensors_in_place_and_replaces_other_values(tmp_path):
    sd, md = _saved(tmp_path)
    assert list(md.state_dict_metadata) == ["w", "opt.step", "opt.lr", "opt.hist", "opt.ids", "layers.0",
                                            "layers.1", "name"]
    w = torch.zeros(2, 3, dtype=torch.float64)   # cast on load, as PyTorch's copy into the given tensor
    back = {"w": w, "opt": {"step": 0, "lr": 0.0, "hist": [], "ids": torch.zeros(4, dtype=torch.int64)},
            "layers": [torch.zeros(2), torch.ones(1, dtype=torch.float64)], "name": ""}
    dcp.load(back, checkpoint_id=tmp_path / "ck")
    assert back["w"] is w and w.dtype == torch.float64
    np.testing.assert_allclose(w.numpy(), sd["w"].numpy().astype(np.float64))
    assert back["opt"] == {"step": 7, "lr": 0.5, "hist": [1, 2], "ids": back["opt"]["ids"]}
    assert back["opt"]["ids"].tolist() == [0, 1, 2, 3] and back["name"] == "run-1"
    assert back["layers"][0].tolist() == [1.0, 1.0] and back["layers"][1].tolist() == [0.0]


def test_read_metadata_lists_sizes_and_dtypes(tmp_path):
    _saved(tmp_path)
    md = dcp.FileSystemReader(tmp_path / "ck").read_metadata()
    w = md.state_dict_metadata["w"]
    assert isinstance(w, dcp.TensorStorageMetadata) and w.size == torch.Size([2, 3])
    assert w.properties.dtype == torch.float32 and md.state_dict_metadata["opt.ids"].properties.dtype == torch.int64
    assert isinstance(md.state_dict_metadata["opt.step"], dcp.BytesStorageMetadata)
    assert w.chunks == [dcp.ChunkStorageMetadata(torch.Size([0, 0]), torch.Size([2, 3]))]
    assert md.planner_data["opt.step"] == ("opt", "step")
    assert sorted(os.listdir(tmp_path / "ck")) == [".metadata", "__0_0.distcp"]   # no temporary file left


def _failure(tmp_path, sd):
    with pytest.raises(dcp.CheckpointException) as info:
        dcp.load(sd, checkpoint_id=tmp_path / "ck")
    (exc, _), = info.value.failures.values()
    return exc, str(info.value)


def test_load_errors_are_pytorchs(tmp_path):
    _saved(tmp_path)
    exc, text = _failure(tmp_path, {"nope": torch.zeros(1)})
    assert type(exc) is RuntimeError and str(exc) == "Missing key in checkpoint state_dict: nope."
    assert text.startswith("CheckpointException ranks:dict_keys([0])\nTraceback (most recent call last): (RANK 0)\n")
    assert text.endswith("RuntimeError: Missing key in checkpoint state_dict: nope.\n")
    exc, _ = _failure(tmp_path, {"w": torch.zeros(3, 3)})
    assert type(exc) is ValueError
    assert str(exc) == f"Size mismatch between saved {torch.Size([2, 3])} and current: {torch.Size([3, 3])} for w"
    exc, _ = _failure(tmp_path, {"w": 3})
    assert type(exc) is ValueError and str(exc).startswith(
        "Invalid checkpoint metadata for w, expected BytesStorageMetadata but found <class ")
    with pytest.raises(dcp.CheckpointException) as info:
        dcp.load({"w": torch.zeros(1)}, checkpoint_id=tmp_path / "elsewhere")
    assert "AssertionError: metadata is None; global metadata read failed: [Errno 2] No such file" in str(info.value)
    assert not isinstance(info.value, Exception)   # a BaseException, as PyTorch's


def test_storage_arguments(tmp_path):
    with pytest.raises(RuntimeError, match="^`checkpoint_id` must be specified if storage_reader/storage_writer "
                                           "is None.$"):
        dcp.save({"a": torch.ones(1)})
    writer = dcp.FileSystemWriter(tmp_path / "a", overwrite=False)
    assert (writer.single_file_per_rank, writer.sync_files, writer.thread_count) == (True, True, 1)
    dcp.save({"a": torch.ones(1)}, storage_writer=writer)
    with pytest.raises(dcp.CheckpointException, match="Checkpoint already exists and self.overwrite=False."):
        dcp.save({"a": torch.ones(1)}, storage_writer=writer)
    dcp.save({"a": torch.full((1,), 2.0)}, storage_writer=writer, checkpoint_id=tmp_path / "b")  # moves the writer
    out = {"a": torch.zeros(1)}
    dcp.load(out, storage_reader=dcp.FileSystemReader(tmp_path / "a"), checkpoint_id=tmp_path / "b")
    assert out["a"].tolist() == [2.0]


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch boom",))


def test_loading_never_runs_code_from_the_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _saved(tmp_path)
    ck = tmp_path / "ck"
    good = (ck / ".metadata").read_bytes()
    (ck / ".metadata").write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(dcp.CheckpointException, match="names posix.system, which ember does not load"):
        dcp.load({"w": torch.zeros(2, 3)}, checkpoint_id=ck)
    buf = io.BytesIO()
    serialization.save(_Boom(), buf)        # an entry in the torch.save format whose pickle calls os.system
    (ck / "__9_0.distcp").write_bytes(buf.getvalue())
    md = _pytorch_metadata.read(good)
    md.storage_data[MetadataIndex("name")] = _StorageInfo("__9_0.distcp", 0, len(buf.getvalue()))
    (ck / ".metadata").write_bytes(_pytorch_metadata.write(md))
    with pytest.raises(dcp.CheckpointException, match="Unsupported global: GLOBAL posix.system"):
        dcp.load({"name": ""}, checkpoint_id=ck)
    md.storage_data[MetadataIndex("name")] = _StorageInfo("../evil.distcp", 0, 1)
    (ck / ".metadata").write_bytes(_pytorch_metadata.write(md))
    with pytest.raises(dcp.CheckpointException, match="lies outside the checkpoint"):
        dcp.load({"name": ""}, checkpoint_id=ck)
    assert not (tmp_path / "boom").exists()


def test_metadata_is_pytorchs_pickle_of_its_classes_only(tmp_path):
    _saved(tmp_path)
    raw = (tmp_path / "ck" / ".metadata").read_bytes()
    names = {arg.replace(" ", ".") for op, arg, _ in pickletools.genops(raw) if op.name == "GLOBAL"}
    meta = "torch.distributed.checkpoint.metadata."
    assert names == {meta + "Metadata", meta + "TensorStorageMetadata", meta + "TensorProperties",
                     meta + "ChunkStorageMetadata", meta + "BytesStorageMetadata", meta + "MetadataIndex",
                     meta + "_MEM_FORMAT_ENCODING", "torch.distributed.checkpoint.filesystem._StorageInfo",
                     "torch.Size", "torch.serialization._get_layout", "torch.float32", "torch.int64",
                     "torch.float64"}


class _App(Stateful):
    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def state_dict(self):
        m, o = dsd.get_state_dict(self.model, self.opt)
        return {"model": m, "optim": o}

    def load_state_dict(self, sd):
        dsd.set_state_dict(self.model, self.opt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])


def _trained():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.1)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    return model, opt


def test_stateful_app_round_trip(tmp_path):
    model, opt = _trained()
    dcp.save({"app": _App(model, opt)}, checkpoint_id=tmp_path / "ck")
    fresh, fresh_opt = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), None
    fresh_opt = optim.Adam(fresh.parameters(), lr=0.01)
    dcp.load({"app": _App(fresh, fresh_opt)}, checkpoint_id=tmp_path / "ck")
    for a, b in zip(model.parameters(), fresh.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    want, got = opt.state_dict(), fresh_opt.state_dict()
    assert got["param_groups"][0]["lr"] == 0.1
    np.testing.assert_array_equal(got["state"][3]["exp_avg"].numpy(), want["state"][3]["exp_avg"].numpy())


def test_optimizer_state_dict_by_name_and_flattened():
    model, opt = _trained()
    osd = dsd.get_optimizer_state_dict(model, opt)
    assert list(osd["state"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert osd["param_groups"][0]["params"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    np.testing.assert_array_equal(osd["state"]["2.bias"]["exp_avg"].numpy(), opt.state_dict()["state"][3]["exp_avg"])
    flat = dsd.get_optimizer_state_dict(model, opt, options=dsd.StateDictOptions(flatten_optimizer_state_dict=True))
    assert list(flat)[:3] == ["state.0.weight.step", "state.0.weight.exp_avg", "state.0.weight.exp_avg_sq"]
    assert flat["param_groups.2.bias.lr"] == 0.1
    other = optim.Adam(model.parameters(), lr=0.5)
    dsd.set_optimizer_state_dict(model, other, flat)
    assert other.param_groups[0]["lr"] == 0.1
    np.testing.assert_array_equal(other.state_dict()["state"][0]["exp_avg_sq"].numpy(),
                                  opt.state_dict()["state"][0]["exp_avg_sq"].numpy())


def test_optimizer_without_steps_gets_zero_state_and_unchanged_parameters():
    model = nn.Linear(2, 1)
    before = model.weight.detach().clone()
    osd = dsd.get_optimizer_state_dict(model, optim.Adam(model.parameters(), lr=0.1))
    assert float(osd["state"]["weight"]["step"]) == 1.0 and osd["state"]["bias"]["exp_avg"].tolist() == [0.0]
    assert model.weight.grad is None and model.weight.detach().tolist() == before.tolist()
    model(torch.ones(1, 2)).sum().backward()   # a gradient already there: PyTorch leaves the state empty
    assert dsd.get_optimizer_state_dict(model, optim.Adam(model.parameters()))["state"] == {}


def test_model_state_dict_options():
    model, _ = _trained()
    model[0].weight.requires_grad_(False)
    keys = list(dsd.get_model_state_dict(model, options=dsd.StateDictOptions(ignore_frozen_params=True)))
    assert keys == ["0.bias", "2.weight", "2.bias"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.bias", "2.weight", "2.bias"'):
        dsd.set_model_state_dict(model, {"0.weight": torch.zeros(4, 3)})
    res = dsd.set_model_state_dict(model, {"0.weight": torch.zeros(4, 3)}, options=dsd.StateDictOptions(strict=False))
    assert res.missing_keys == ["0.bias", "2.weight", "2.bias"] and model[0].weight.abs().sum().item() == 0
    with pytest.raises(ValueError, match="^full_state_dict must be True when broadcast_from_rank0 is True.$"):
        dsd.get_model_state_dict(model, options=dsd.StateDictOptions(broadcast_from_rank0=True))


_PYTORCH_WRITES = """
import sys, warnings, torch, torch.distributed.checkpoint as dcp
warnings.simplefilter("ignore")
sd = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "half": torch.tensor([1.5], dtype=torch.bfloat16),
      "opt": {"step": 4, "betas": (0.9, 0.99), "ids": [torch.tensor([7, 8])]}}
dcp.save(sd, checkpoint_id=sys.argv[1])
"""


_PYTORCH_READS = """
import sys, warnings, torch, torch.distributed.checkpoint as dcp
warnings.simplefilter("ignore")
sd = {"w": torch.zeros(2, 3), "opt": {"step": 0, "hist": None, "ids": torch.zeros(4, dtype=torch.int64)},
      "layers": [torch.zeros(2), torch.ones(1, dtype=torch.float64)]}
dcp.load(sd, checkpoint_id=sys.argv[1])
print(sd["w"].sum().item(), sd["opt"]["step"], sd["opt"]["hist"], sd["opt"]["ids"].tolist(), sd["layers"][1].item())
"""


def _pytorch(script: str, *args: str) -> str:
    import importlib.util
    import subprocess
    import sys

    spec = importlib.util.find_spec("torch")
    if spec is None or "ember" in str(spec.origin):
        pytest.skip("PyTorch is not installed")
    return subprocess.run([sys.executable, "-c", script, *args], check=True, timeout=120, capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout


def test_pytorch_reads_a_checkpoint_ember_wrote(tmp_path):
    sd, _ = _saved(tmp_path)
    got = _pytorch(_PYTORCH_READS, str(tmp_path / "ck")).split()
    assert float(got[0]) == pytest.approx(sd["w"].sum().item(), abs=1e-5)
    assert got[1:] == ["7", "[1,", "2]", "[0,", "1,", "2,", "3]", "0.0"]


def test_reads_a_checkpoint_pytorch_wrote(tmp_path):
    _pytorch(_PYTORCH_WRITES, str(tmp_path / "pt"))
    md = dcp.FileSystemReader(tmp_path / "pt").read_metadata()
    w = md.state_dict_metadata["w"]
    assert w.size == torch.Size([2, 3]) and w.properties.dtype == torch.float32
    assert w.properties.memory_format == torch.contiguous_format and w.properties.layout == torch.strided
    assert isinstance(md.state_dict_metadata["opt.step"], dcp.BytesStorageMetadata)
    out = {"w": torch.zeros(2, 3), "half": torch.zeros(1, dtype=torch.bfloat16),
           "opt": {"step": 0, "betas": None, "ids": [torch.zeros(2, dtype=torch.int64)]}}
    dcp.load(out, checkpoint_id=tmp_path / "pt")
    assert out["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and out["half"].float().tolist() == [1.5]
    assert out["opt"]["step"] == 4 and out["opt"]["betas"] == (0.9, 0.99) and out["opt"]["ids"][0].tolist() == [7, 8]


def test_deprecated_names_and_async_save_need_a_group_unless_no_dist(tmp_path):
    with pytest.warns(FutureWarning, match="^`save_state_dict` is deprecated and will be removed in future "
                                           "versions.Please use `save` instead.$"):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            dcp.save_state_dict({"a": torch.ones(1)}, storage_writer=dcp.FileSystemWriter(tmp_path))
    with pytest.warns(FutureWarning):
        dcp.save_state_dict({"a": torch.full((1,), 3.0)}, storage_writer=dcp.FileSystemWriter(tmp_path), no_dist=True)
    out = {"a": torch.zeros(1)}
    with pytest.warns(FutureWarning, match="^`load_state_dict` is deprecated and will be removed in future "
                                           "versions. Please use `load` instead.$"):
        dcp.load_state_dict(out, storage_reader=dcp.FileSystemReader(tmp_path), no_dist=True)
    assert out["a"].tolist() == [3.0]
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dcp.async_save({"a": torch.ones(1)}, checkpoint_id=tmp_path / "b")
    fut = dcp.async_save({"a": torch.ones(1)}, checkpoint_id=tmp_path / "b", no_dist=True)
    assert fut.done() and list(fut.result().state_dict_metadata) == ["a"]

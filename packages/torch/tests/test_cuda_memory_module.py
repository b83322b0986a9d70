"""torch.cuda.memory and torch.cuda.random under PyTorch's paths; the memory-history recorder of
PyTorch's profiling guide (`_record_memory_history`, `_dump_snapshot`) in the simulator."""

import pickle

import pytest

import ember.torch as torch


def test_modules_under_pytorchs_paths():
    import ember.torch.cuda.memory as memory
    import ember.torch.cuda.random as random

    assert memory.memory_allocated is torch.cuda.memory_allocated and memory.get_allocator_backend() == "native"
    assert random.get_rng_state is torch.cuda.get_rng_state and torch.cuda.random is random


def test_list_gpu_processes_without_nvidia_ml_py(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pynvml", None)
    assert torch.cuda.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")
def test_dump_snapshot_records_allocations(tmp_path):
    torch.cuda.memory._record_memory_history(max_entries=1000)
    try:
        x = torch.ones(256, device="cuda")
        path = tmp_path / "snap.pickle"
        torch.cuda.memory._dump_snapshot(str(path))
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    with open(path, "rb") as f:
        snap = pickle.load(f)
    assert any(e["action"] == "alloc" for e in snap["trace"]) and snap["segments"]
    del x

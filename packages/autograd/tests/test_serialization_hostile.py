"""Hostile files and killed saves (NOTE [ Load errors ], NOTE [ The geometry gate ]): every
crafted file of `hostile_files.corpus()` is loaded in a child process, which must print one
clean `CheckpointError` per bad file (no signal, no hang) and, for legal files, only the
values the file holds."""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ember.autograd as E
from ember.autograd import CheckpointError, checkpoint_io

import hostile_files as H  # importable through conftest.py

HERE = Path(__file__).parent


def _run_corpus(tmp_path: Path) -> tuple[dict[str, H.Case], dict[str, dict], subprocess.CompletedProcess]:
    cases = {c.id: c for c in H.corpus()}
    for c in cases.values():
        (tmp_path / c.id).write_bytes(c.data)
    proc = subprocess.run([sys.executable, str(HERE / "hostile_files.py"), str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    results = {}
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        if "id" in rec:
            results[rec["id"]] = rec
    return cases, results, proc


def test_hostile_corpus_fails_cleanly_in_a_child_process(tmp_path):
    cases, results, proc = _run_corpus(tmp_path)
    last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    assert proc.returncode == 0, f"the child died (rc {proc.returncode}) at {last}: {proc.stderr[-2000:]}"
    assert set(results) == set(cases)
    for cid, case in cases.items():
        rec = results[cid]
        if case.expect is None:  # a legal file: only the file's own values come back
            assert rec["status"] == "ok", rec
            (w,) = rec["summary"].values()
            assert w["first"] == 7.0 and w["storage_nbytes"] == 16, rec
        elif case.kind.endswith("-maybe") and rec["status"] == "ok":  # a flip in a field nobody reads
            assert rec["summary"]["w"]["values"] == [1.0, 2.0, 3.0, 4.0], rec
        else:
            assert rec["status"] == "error" and rec["clean"], rec
            assert case.expect in rec["message"], rec
            # every message names the file, but PyTorch's own words for an unreadable zip (which name none)
            assert f"load: {tmp_path / cid}" in rec["message"] or rec["message"].startswith("PytorchStreamReader"), rec


def test_negative_offset_in_either_format_is_refused_not_read_from_outside_the_storage():
    # the reproduction: a zero-filled storage loaded as 2.79e+20 with offset -1000
    for data in (H.ember_state(H.ember_tensor(offset=-1000)), H.torch_state(H.torch_tensor(offset=-1000))):
        with pytest.raises(CheckpointError, match="invalid storage offset -1000") as e:
            E.load(io.BytesIO(data))
        assert isinstance(e.value, RuntimeError) and isinstance(e.value, pickle.UnpicklingError)


def test_negative_stride_in_a_pytorch_zip_raises_in_a_child_instead_of_crashing(tmp_path):
    # the reproduction: this file killed the process by SIGSEGV
    p = tmp_path / "negative_stride.pt"
    p.write_bytes(H.torch_state(H.torch_tensor(offset=3, stride=(-1,), size=(4,))))
    code = f"import ember.autograd as E\ntry:\n    print(E.load({str(p)!r}))\nexcept E.CheckpointError as e:\n" \
           "    print('refused:', e)\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "refused:" in proc.stdout and "Negative strides" in proc.stdout, proc


def test_huge_stride_zero_tensor_loads_as_a_view():
    for data in (H.ember_state(H.ember_tensor(shape=(2**40, 8), stride=(0, 0)), struct.pack("<4f", 3, 0, 0, 0)),
                 H.torch_state(H.torch_tensor(size=(2**40, 8), stride=(0, 0)), struct.pack("<4f", 3, 0, 0, 0))):
        w = E.load(io.BytesIO(data))["w"]
        assert w.shape == (2**40, 8) and w.stride() == (0, 0) and w.untyped_storage().nbytes == 16
        assert w[2**39, 7].item() == 3.0


def test_nesting_within_the_limit_round_trips_and_deeper_is_refused():
    deep = []
    for _ in range(checkpoint_io.MAX_DEPTH - 1):
        deep = [deep]
    buf = io.BytesIO()
    E.save(deep, buf)
    out = E.load(io.BytesIO(buf.getvalue()))
    for _ in range(checkpoint_io.MAX_DEPTH - 1):
        (out,) = out
    assert out == []
    buf = io.BytesIO()
    E.save([deep], buf)
    with pytest.raises(CheckpointError, match="nested deeper than 100 levels"):
        E.load(io.BytesIO(buf.getvalue()))


def test_errors_of_a_map_location_callable_pass_through_unchanged():
    buf = io.BytesIO()
    E.save({"w": E.ones(2)}, buf)

    def boom(storage, location):
        raise KeyError("the caller's own bug")

    with pytest.raises(KeyError, match="the caller's own bug"):
        E.load(io.BytesIO(buf.getvalue()), map_location=boom)
    with pytest.raises(TypeError, match="map_location must be"):
        E.load(io.BytesIO(buf.getvalue()), map_location=3)


def test_safetensors_errors_are_the_one_load_error_and_still_value_errors():
    with pytest.raises(CheckpointError, match="data_offsets must be integers") as e:
        E.safetensors.load(H.safetensors_file(H.st_entry(offsets=(0.0, 16.0))))
    assert isinstance(e.value, ValueError) and isinstance(e.value, E.safetensors.SafetensorError)


_KILLED_SAVE = textwrap.dedent("""
    import sys, time
    import ember.autograd as E
    from ember.autograd import serialization

    def slow(f, chunks):
        f.write(chunks[0])
        f.flush()
        print("writing", flush=True)
        time.sleep(600)

    serialization._write_chunks = slow
    E.save({"w": E.zeros(1000)}, sys.argv[1])
""")


def test_killed_save_leaves_a_temporary_that_the_next_save_removes(tmp_path):
    target = tmp_path / "ckpt.pt"
    E.save({"version": 1}, target)
    child = subprocess.Popen([sys.executable, "-c", _KILLED_SAVE, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    left = [n for n in os.listdir(tmp_path) if n != "ckpt.pt"]
    assert len(left) == 1 and ".ember-tmp." in left[0] and f".{child.pid}." in left[0]
    assert E.load(target) == {"version": 1}  # the kill never corrupted the checkpoint
    E.save({"version": 2}, tmp_path / "other.pt")  # any save into the folder cleans up
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt", "other.pt"]


def test_temporaries_of_live_processes_and_other_hosts_are_kept(tmp_path):
    host = checkpoint_io._host()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine = tmp_path / f".a.pt.ember-tmp.{host}.{os.getpid()}.abc123"
    other_host = tmp_path / f".a.pt.ember-tmp.elsewhere{host}x.{dead.pid}.abc123"
    stale = tmp_path / f".a.pt.ember-tmp.{host}.{dead.pid}.abc123"
    unrelated = tmp_path / ".a.pt.tmp"
    for p in (mine, other_host, stale, unrelated):
        p.write_bytes(b"x")
    E.safetensors.save_file({"w": E.ones(2)}, tmp_path / "a.safetensors")
    assert not stale.exists() and mine.exists() and other_host.exists() and unrelated.exists()


@pytest.mark.torch
def test_crafted_pytorch_zips_are_what_pytorch_reads_and_refuses(tmp_path):
    torch = pytest.importorskip("torch")
    good = tmp_path / "good.pt"
    good.write_bytes(H.torch_state(H.torch_tensor(), struct.pack("<4f", 1, 2, 3, 4)))
    assert torch.load(good, weights_only=True)["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert E.load(good)["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    view = tmp_path / "view.pt"
    view.write_bytes(H.torch_state(H.torch_tensor(size=(2**40,), stride=(0,))))
    assert torch.load(view, weights_only=True)["w"].shape == (2**40,)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(H.torch_state(H.torch_tensor(offset=-1000)))
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        torch.load(bad, weights_only=True)


def test_map_location_callable_sees_the_storages_of_a_pytorch_zip():
    data = H.torch_state(H.torch_tensor(), struct.pack("<4f", 1, 2, 3, 4))
    seen = []

    def keep(storage, location):
        seen.append((storage.nbytes, location))
        return storage

    assert E.load(io.BytesIO(data), map_location=keep)["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert seen == [(16, "cpu")]

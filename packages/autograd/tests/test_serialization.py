"""save/load round trips, shared storages, and the errors for foreign, truncated and corrupted
files; atomic saving; safetensors files."""

from __future__ import annotations

import collections
import io
import math
import os
import pickle
import re
from collections import OrderedDict

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import serialization
from ember.autograd.safetensors import SafetensorError, metadata_of


def _roundtrip(obj, **kw):
    buf = io.BytesIO()
    E.save(obj, buf)
    buf.seek(0)
    return E.load(buf, **kw)


def test_state_dict_round_trip_keeps_types_values_and_order():
    state = OrderedDict(weight=E.randn(3, 4), bias=E.zeros(4, dtype=E.float64), steps=E.tensor([1, 2]),
                        mask=E.tensor([True, False]))
    opt = {"state": {0: {"step": 3, "exp_avg": E.ones(2)}}, "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999),
                                                                               "params": [0, 1], "nesterov": False,
                                                                               "name": None}]}
    out = _roundtrip({"model": state, "optim": opt, "epoch": 7, "loss": float("inf")})
    assert isinstance(out["model"], OrderedDict) and list(out["model"]) == ["weight", "bias", "steps", "mask"]
    for k, v in state.items():
        assert out["model"][k].dtype == v.dtype and E.equal(out["model"][k], v)
    assert out["optim"]["state"][0]["step"] == 3 and 0 in out["optim"]["state"]
    assert out["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert out["epoch"] == 7 and math.isinf(out["loss"])


def test_views_share_one_storage_after_loading():
    base = E.arange(12.0).view(3, 4)
    row, col = base[1], base[:, 2]
    out = _roundtrip([base, row, col])
    assert out[1]._storage is out[0]._storage is out[2]._storage
    out[0][1, 2] = 100.0
    assert out[1][2].item() == 100.0 and out[2][1].item() == 100.0
    assert out[2].stride() == (4,) and not out[2].is_contiguous()


def test_requires_grad_and_scalars_dtypes_devices():
    w = E.ones(2, requires_grad=True)
    out = _roundtrip((w, E.float16, E.device("cpu"), E.Size([2, 3]), np.float32(1.5)))
    assert out[0].requires_grad and out[0].is_leaf
    assert out[1] is E.float16 and out[2] == E.device("cpu") and out[3] == (2, 3) and out[4] == 1.5


class Box:
    """An arbitrary object (as a whole nn.Module would be)."""

    def __init__(self, w):
        self.w = w
        self.view = w[1:]


def test_arbitrary_objects_need_weights_only_false():
    buf = io.BytesIO()
    E.save({"box": Box(E.arange(4.0)), "t": E.ones(2)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        E.load(buf)
    buf.seek(0)
    out = E.load(buf, weights_only=False)
    assert isinstance(out["box"], Box) and out["box"].w.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert out["box"].view._storage is out["box"].w._storage


def test_unsafe_globals_in_checkpoint_lists_what_a_weights_only_load_refuses():
    buf = io.BytesIO()
    E.save([{"box": Box(E.arange(4.0))}, Box(E.ones(1)), OrderedDict(t=E.ones(2))], buf)
    buf.seek(0)
    assert serialization.get_unsafe_globals_in_checkpoint(buf) == [f"{Box.__module__}.Box"]
    with serialization.safe_globals([Box]):
        buf.seek(0)
        assert serialization.get_unsafe_globals_in_checkpoint(buf) == []
    plain = io.BytesIO()
    E.save({"w": E.ones(2), "n": 3}, plain)  # PyTorch's zip format: nothing but allowed globals
    plain.seek(0)
    assert serialization.get_unsafe_globals_in_checkpoint(plain) == []


def test_tensor_subclasses_come_back_as_their_class_when_allowed():
    class Marked(E.Tensor):
        pass

    Marked.__module__ = __name__
    Marked.__qualname__ = "Marked"
    globals()["Marked"] = Marked
    obj = {"m": E.ones(2)._as_subclass(Marked).requires_grad_()}
    with pytest.raises(pickle.UnpicklingError, match=f"Unsupported global: GLOBAL {__name__}.Marked was not an "
                                                     "allowed global by default"):
        _roundtrip(obj)  # PyTorch's weights-only load refuses a tensor subclass it was not told about
    for out in (_roundtrip(obj, weights_only=False), _with_safe_globals([Marked], lambda: _roundtrip(obj))):
        assert type(out["m"]) is Marked and out["m"].requires_grad


def _with_safe_globals(allowed, fn):
    with serialization.safe_globals(allowed):
        return fn()


def test_weights_only_load_refuses_an_uninitialized_parameter_but_builds_parameters():
    nn = pytest.importorskip("ember.nn")
    buf = io.BytesIO()
    E.save({"w": nn.parameter.UninitializedParameter(), "p": nn.Parameter(E.ones(2))}, buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="GLOBAL ember.nn.parameter.UninitializedParameter was not an allowed "
                                           "global by default"):
        E.load(buf)
    buf.seek(0)
    out = E.load(buf, weights_only=False)
    assert isinstance(out["w"], nn.parameter.UninitializedParameter)
    assert type(_roundtrip({"p": nn.Parameter(E.ones(2))})["p"]) is nn.Parameter


@pytest.mark.torch
def test_torch_file_with_an_uninitialized_parameter_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "uninit.pt"
    torch.save({"w": torch.nn.parameter.UninitializedParameter()}, p)
    with pytest.raises(pickle.UnpicklingError, match="UninitializedParameter"):
        torch.load(p, weights_only=True)  # PyTorch's own weights-only load refuses it too
    with pytest.raises(pickle.UnpicklingError, match="UninitializedParameter"):
        E.load(p)


def test_deepcopy_only_of_leaves():
    import copy

    x = E.ones(2, requires_grad=True)
    y = copy.deepcopy(x)
    assert y.requires_grad and y.is_leaf and y is not x
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)


def test_foreign_file_raises_what_pytorch_raises(tmp_path):
    # PyTorch reads bytes that are no zip archive as its legacy format, whose first pickled object is a magic number
    import pickle

    p = tmp_path / "foreign.bin"
    p.write_bytes(b"hello, this is not a checkpoint at all")  # 'h' is BINGET: memo entry 101 ('e') is missing
    with pytest.raises(KeyError, match="^101$"):
        E.load(p)
    with pytest.raises(pickle.UnpicklingError, match="^Memo value not found at index 101$"):
        E.load(p, weights_only=False)
    p.write_bytes(b"")
    with pytest.raises(EOFError, match="^$"):
        E.load(p)
    p.write_bytes(pickle.dumps({"a": 1}, protocol=2))  # a pickle that loads, but is no magic number
    with pytest.raises(RuntimeError, match="^Invalid magic number; corrupt file\\?$"):
        E.load(p)
    p.write_bytes(pickle.dumps({"a": 1}, protocol=4))  # FRAME is no opcode of the weights-only unpickler
    with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*WeightsUnpickler error: \n\n"
                                                      "Unsupported operand 149\n\nCheck the documentation"):
        E.load(p)
    p.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    with pytest.raises(RuntimeError, match="^PytorchStreamReader failed reading zip archive: failed finding central"):
        E.load(p)


def test_foreign_files_raise_as_in_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    import pickle
    import random
    import warnings

    rng = random.Random(0)
    blobs = [bytes(rng.randrange(256) for _ in range(rng.choice([1, 2, 5, 40]))) for _ in range(60)]
    blobs += [bytes(rng.choice(b"KJMGXUhqjr()]}t.N\x80\x85c\nRsueab 01") for _ in range(rng.choice([2, 6, 30])))
              for _ in range(60)]
    blobs += [pickle.dumps(obj, protocol=proto) for obj in ({"a": 1}, [1, 2.5], {1, 2}, b"x", 2**70)
              for proto in (2, 4)] + [b"", b"a,b\n1,2\n", b'{"a": 1}']
    for i, blob in enumerate(blobs):
        p = tmp_path / f"{i}.bin"
        p.write_bytes(blob)
        for weights_only in (True, False):
            got = []
            for lib in (torch, E):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        lib.load(p, weights_only=weights_only)
                    got.append("loaded")
                except Exception as e:  # noqa: BLE001 - the exception is what is compared
                    got.append((type(e).__name__, str(e)))
            assert got[0] == got[1], (blob, weights_only)


def test_refused_global_prints_as_pytorchs_unpickling_error(tmp_path):
    import pickle

    from ember.autograd.checkpoint_io import CheckpointError

    p = tmp_path / "m.pt"
    E.save({"f": _Opaque()}, p)
    with pytest.raises(CheckpointError) as info:  # ember's own except clauses still catch it
        E.load(p)
    assert type(info.value).__name__ == "UnpicklingError" and type(info.value).__module__ == "_pickle"
    assert isinstance(info.value, pickle.UnpicklingError) and isinstance(info.value, RuntimeError)
    assert type(pickle.loads(pickle.dumps(info.value))) is type(info.value)


class _Opaque:
    pass


def test_truncated_file_is_rejected(tmp_path):
    p = tmp_path / "ckpt.pt"
    E.save({"w": E.randn(100)}, p)
    data = p.read_bytes()
    for cut in (len(data) - 1, len(data) - 200, 30):
        p.write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="^PytorchStreamReader failed reading zip archive|truncated"):
            E.load(p)


def test_corrupted_file_fails_its_checksum(tmp_path):
    p = tmp_path / "ckpt.pt"
    w = E.randn(100)
    E.save({"w": w}, p)  # PyTorch's zip format: each record has its CRC-32
    data = bytearray(p.read_bytes())
    data[data.index(w.numpy().tobytes()) + 10] ^= 0xFF  # a byte of tensor data
    p.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="ckpt/data/0: corrupted: checksum mismatch"):
        E.load(p)
    E.save({"box": Box(w)}, p)  # ember's format: one SHA-256 over the file
    data = bytearray(p.read_bytes())
    data[-100] ^= 0xFF
    p.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="checksum mismatch"):
        E.load(p, weights_only=False)


def test_save_to_path_is_atomic(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    E.save({"version": 1}, p)
    before = p.read_bytes()

    def crash(f, chunks):
        f.write(chunks[0][:10])
        raise OSError("disk full")

    monkeypatch.setattr(serialization, "_write_chunks", crash)
    with pytest.raises(OSError, match="disk full"):
        E.save({"version": 2, "w": E.ones(1000)}, p)
    assert p.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.pt"]
    monkeypatch.undo()
    E.save({"version": 2}, p)
    assert E.load(p) == {"version": 2}


def test_map_location_dict_and_string():
    out = _roundtrip(E.ones(2), map_location="cpu")
    assert out.device == E.device("cpu")
    out = _roundtrip(E.ones(2), map_location={"cuda:0": "cpu"})
    assert out.device == E.device("cpu")


def test_safetensors_round_trip(tmp_path):
    tensors = {"w": E.randn(3, 4), "b": E.arange(5), "m": E.tensor([True, False]), "t": E.randn(4, 3).t(),
               "h": E.ones(2, dtype=E.float16)}
    p = tmp_path / "model.safetensors"
    E.save_safetensors(tensors, p, metadata={"format": "pt"})
    out = E.load_safetensors(p)
    assert set(out) == set(tensors)
    for k, v in tensors.items():
        assert out[k].dtype == v.dtype and E.equal(out[k], v.contiguous())
    assert metadata_of(p.read_bytes()) == {"format": "pt"}
    raw = p.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert n % 8 == 0 and raw[8 + n - 1:8 + n] in (b"}", b" ")


def test_safetensors_rejects_bad_files():
    data = E.safetensors.save({"w": E.ones(4)})
    with pytest.raises(SafetensorError, match="truncated"):
        E.safetensors.load(data[:-3])
    with pytest.raises(SafetensorError, match="invalid header length"):
        E.safetensors.load(b"\xff" * 16)
    with pytest.raises(SafetensorError, match="too small"):
        E.safetensors.load(b"abc")


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_pytorch_style_zip_with_foreign_globals_is_refused(tmp_path):
    import zipfile

    p = tmp_path / "evil.pt"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("evil/data.pkl", pickle.dumps({"x": _Evil()}, protocol=2))
        z.writestr("evil/byteorder", "little")
    with pytest.raises(pickle.UnpicklingError, match="needs the global (posix|nt|os).system"):
        E.load(p)


def test_load_map_location_callable_sees_each_storage_and_its_saved_location():
    buf = io.BytesIO()
    E.save({"a": E.arange(3.0), "b": E.ones(2)}, buf)
    seen = []

    def keep(storage, location):
        seen.append(location)
        return storage

    buf.seek(0)
    d = E.load(buf, map_location=keep)
    assert seen == ["cpu", "cpu"]
    assert d["a"].tolist() == [0.0, 1.0, 2.0] and d["b"].tolist() == [1.0, 1.0]
    buf.seek(0)
    with pytest.raises(TypeError, match="map_location returned int"):
        E.load(buf, map_location=lambda storage, location: 3)


def test_safe_globals_allow_named_classes_in_a_weights_only_load():
    buf = io.BytesIO()
    E.save({"box": Box(E.arange(3.0))}, buf)
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL .*Box was not an allowed global"):
        buf.seek(0)
        E.load(buf)
    with serialization.safe_globals([Box]):
        buf.seek(0)
        out = E.load(buf)
    assert isinstance(out["box"], Box) and out["box"].w.tolist() == [0.0, 1.0, 2.0]
    assert Box not in serialization.get_safe_globals()  # the context manager restored the allowlist
    serialization.add_safe_globals([Box])
    try:
        buf.seek(0)
        assert isinstance(E.load(buf)["box"], Box)
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_save_and_load_refuse_what_is_neither_path_nor_file():
    """PyTorch's errors for `f` that is no path and no file object (AttributeErrors, as its buffer checks raise)."""
    for f in (5, None, object()):
        with pytest.raises(AttributeError, match="^expected 'f' to be string, path, or a file-like object with a "
                                                 "'write' attribute$"):
            E.save(E.ones(1), f)
        with pytest.raises(AttributeError, match=f"^'{type(f).__name__}' object has no attribute 'seek'. You can only "
                                                 "torch.load from a file that is seekable."):
            E.load(f)


def test_save_into_a_missing_folder_raises_pytorchs_error(tmp_path):
    with pytest.raises(RuntimeError, match=f"^Parent directory {re.escape(str(tmp_path / 'nodir'))} does not exist.$"):
        E.save({}, tmp_path / "nodir" / "x.pt")
    assert list(tmp_path.iterdir()) == []


Pair = collections.namedtuple("Pair", "a b")


def test_container_subclasses_load_as_themselves_and_weights_only_allows_pytorchs_builtins():
    """A Counter / namedtuple is not flattened to a dict / tuple; PyTorch's weights-only allowlist (Counter, set,
    bytearray, bytes through `_codecs.encode`) loads, a slice or a namedtuple class needs allowlisting."""
    out = _roundtrip({"c": collections.Counter("aab"), "p": Pair(1, 2)}, weights_only=False)
    assert type(out["c"]) is collections.Counter and out["c"]["a"] == 2
    assert type(out["p"]) is Pair and out["p"].b == 2
    assert _roundtrip(collections.Counter("xy"))["y"] == 1
    assert _roundtrip(bytearray(b"ab")) == bytearray(b"ab") and _roundtrip({1, 2}) == {1, 2}
    assert _roundtrip({"raw": b"\x00\xffxy"})["raw"] == b"\x00\xffxy"
    for obj in (slice(1, 3), Pair(1, 2)):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            _roundtrip(obj)


def test_load_onto_cuda_without_cuda_and_mmap_of_a_buffer_raise_pytorchs_errors():
    from ember.core import cuda

    buf = io.BytesIO()
    E.save({"w": E.ones(2)}, buf)
    if not cuda.is_available():
        for loc in ("cuda:0", {"cpu": "cuda"}):
            buf.seek(0)
            with pytest.raises(RuntimeError, match=r"^Attempting to deserialize object on a CUDA device but "
                                                   r"torch.cuda.is_available\(\) is False") as e:
                E.load(buf, map_location=loc)
            assert not isinstance(e.value, serialization.CheckpointError)
    buf.seek(0)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        E.load(buf, mmap=True)


@pytest.mark.parametrize("data, problem", [(b"PK\x03\x04 junk", "not a ZIP archive"),
                                           (b"PK\x03\x04" + b"x" * 100, "failed finding central directory")])
def test_corrupt_zip_raises_pytorchs_runtime_error(data, problem):
    # PyTorch's words (its zip reader's); ember's CheckpointError still catches it, and it prints as RuntimeError
    with pytest.raises(RuntimeError) as e:
        E.load(io.BytesIO(data))
    assert isinstance(e.value, serialization.CheckpointError) and type(e.value).__name__ == "RuntimeError"
    assert str(e.value).startswith(f"PytorchStreamReader failed reading zip archive: {problem}. This is an internal "
                                   "miniz error. If you are seeing this error, there is a high likelihood that your "
                                   "checkpoint file is corrupted.")


def test_unsafe_globals_are_read_from_the_pickles_without_running_them():
    import functools
    import zipfile

    def scan(obj):
        buf = io.BytesIO()
        E.save(obj, buf)
        buf.seek(0)
        return serialization.get_unsafe_globals_in_checkpoint(buf)

    assert scan({"w": E.ones(2), "od": OrderedDict(a=1), "sz": E.Size([2])}) == []
    box = f"{Box.__module__}.Box"
    # protocol 4: STACK_GLOBAL's strings, the second time "math" fetched from the memo
    obj = {"box": Box(E.arange(3.0)), "fns": [math.sqrt, math.floor], "c": collections.Counter("ab")}
    assert scan(obj) == sorted([box, "math.floor", "math.sqrt"])
    with serialization.safe_globals([Box, math.floor]):
        assert scan(obj) == ["math.sqrt"]
    raw = io.BytesIO()  # a PyTorch zip whose protocol-2 pickle names globals with GLOBAL
    with zipfile.ZipFile(raw, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps(OrderedDict(p=functools.partial(int, base=2)), protocol=2))
    raw.seek(0)
    assert serialization.get_unsafe_globals_in_checkpoint(raw) == ["builtins.int", "functools.partial"]
    with pytest.raises(ValueError, match="^Expected input to be a checkpoint returned by torch.save$"):
        serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(b"junk"))


def _round_trip(obj, weights_only=True):
    buf = io.BytesIO()
    E.save(obj, buf)
    buf.seek(0)
    return E.load(buf, weights_only=weights_only)


def test_nested_tensors_save_and_load_with_their_geometry():
    """PyTorch saves nested tensors (a weights-only load builds them); both layouts, holes and the buffer's
    requires_grad come back."""
    from ember.core import nested

    values = E.arange(15.0).reshape(5, 3)
    jag = nested.nested_tensor_from_jagged(values, E.tensor([0, 2, 5]))
    holes = nested.nested_tensor_from_jagged(values, E.tensor([0, 2, 4]), E.tensor([1, 1]))
    strided = nested.nested_tensor([E.ones(2, 3), E.zeros(1, 2)], requires_grad=True)
    got = _round_trip({"j": jag, "h": holes, "s": [strided]})
    assert got["j"].layout is nested.jagged and [c.tolist() for c in got["j"].unbind()] == \
        [values[:2].tolist(), values[2:].tolist()]
    assert [c.tolist() for c in got["h"].unbind()] == [values[:1].tolist(), values[2:3].tolist()]
    s = got["s"][0]
    assert s.layout is nested.strided and s.requires_grad and s.is_leaf
    assert [c.tolist() for c in s.unbind()] == [[[1.0] * 3] * 2, [[0.0, 0.0]]]


def test_a_nested_tensor_cut_outside_its_buffer_is_refused_at_load():
    from ember.core import nested

    bad = nested.NestedTensor._jagged(E.arange(6.0).reshape(3, 2), E.tensor([0, 2, 7]))
    with pytest.raises(RuntimeError, match="offsets/lengths cut outside the buffer's 3 rows"):
        _round_trip(bad)
    bad = nested.NestedTensor._strided(E.arange(5.0), [(2, 2), (1, 2)])
    with pytest.raises(RuntimeError, match="need more than the buffer's 5 elements"):
        _round_trip(bad)


def test_importing_ember_autograd_leaves_every_ops_subclass_check_off():
    """serialization knows nested tensors without importing ember.core.nested: defining NestedTensor turns on the
    `__torch_function__` check of every op (NOTE [ Tensor subclasses ]), which eager code without subclasses
    must not pay. A fresh interpreter, so nothing earlier in this process has loaded it."""
    import subprocess
    import sys

    code = ("import sys, ember.autograd; from ember.core import overrides; "
            "print(overrides._active[0], 'ember.core.nested' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_saving_a_tensor_with_a_backward_hook_warns_as_pytorch(tmp_path):
    """`Tensor._backward_hooks` holds the hooks by handle id; saving warns for each hook not marked
    `unserializable_hook` (PyTorch's `warn_if_has_hooks`), a leaf's and a non-leaf's alike."""
    import warnings

    from ember.autograd.tensor_api import warn_if_has_hooks

    def hook(g):
        return g

    t = E.ones(2, requires_grad=True)
    assert t._backward_hooks is None
    handle = t.register_hook(hook)
    assert list(t._backward_hooks.values()) == [hook] and repr(t._backward_hooks).startswith("OrderedDict(")
    y = t * 2
    quiet = y.register_hook(lambda g: g)
    y._backward_hooks[quiet.id].__torch_unserializable__ = True
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        E.save({"t": t, "y": y.detach()}, tmp_path / "a.pt")
        warn_if_has_hooks(y)
    assert [str(x.message) for x in w] == [
        f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can decorate the function "
        "with @torch.utils.hooks.unserializable_hook to suppress this warning"]
    handle.remove()
    assert len(t._backward_hooks) == 0

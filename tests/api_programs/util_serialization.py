"""torch.save / torch.load as checkpoint utilities use them: nested containers through BytesIO and files,
views that share storage saved once and still sharing after load, dtype and requires_grad round trips,
weights_only=True accepting tensors and plain containers but refusing user classes (and add_safe_globals /
safe_globals letting one through), map_location as str, device, dict and callable, the legacy format flag,
pickle_protocol, and the errors of loading garbage or a truncated file."""

import collections
import io
import os
import pickle
import tempfile

import numpy as np
import torch


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_kw)


def r4(t):
    return [round(v, 4) for v in t.flatten().tolist()]


rng = np.random.default_rng(1)
w = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
state = {
    "step": 7,
    "lr": 0.003,
    "names": ["enc", "dec"],
    "flags": (True, None),
    "weights": collections.OrderedDict(w=w, b=torch.arange(4, dtype=torch.int16)),
    "half": w.to(torch.float16)[0],
    "cplx": torch.complex(w[0], w[1]),
    "empty": torch.empty(0, 3),
    "scalar": torch.tensor(2.5, dtype=torch.float64),
}
back = roundtrip(state, weights_only=True)
print("keys", list(back), type(back["weights"]).__name__, back["flags"], back["names"])
print("values", torch.equal(back["weights"]["w"], w), back["weights"]["b"].dtype, back["half"].dtype,
      back["cplx"].dtype, tuple(back["empty"].shape), back["scalar"].item(), back["step"], back["lr"])
print("half_vals", r4(back["half"].float()))

base = torch.arange(12.0)
view_a, view_b = base[2:6], base.view(3, 4)[1]
la, lb, lbase = roundtrip([view_a, view_b, base])
lbase[4] = -1.0
print("shared_after_load", la.tolist(), lb.tolist(),
      la.untyped_storage().data_ptr() == lbase.untyped_storage().data_ptr())
print("view_meta", la.storage_offset(), lb.storage_offset(), la.is_contiguous(), lb.stride())
t_only = roundtrip(base[::3])
print("strided_alone", t_only.tolist(), t_only.stride(), t_only.untyped_storage().nbytes())
same = torch.ones(2)
x1, x2 = roundtrip({"a": same, "b": same}).values()
print("same_object", x1 is x2)

p = torch.nn.Parameter(torch.ones(2, 2))
g = roundtrip({"p": p, "t": torch.zeros(2, requires_grad=True)})
print("param", type(g["p"]).__name__, g["p"].requires_grad, g["t"].requires_grad, g["t"].is_leaf)
print("non_contig", roundtrip(w.t()).is_contiguous(), roundtrip(w.t()).stride())


class RunConfig:
    def __init__(self, depth):
        self.depth = depth

    def __eq__(self, other):
        return isinstance(other, RunConfig) and other.depth == self.depth


cfg_ckpt = {"cfg": RunConfig(4), "w": w}
try:
    roundtrip(cfg_ckpt, weights_only=True)
except pickle.UnpicklingError as e:
    msg = str(e)
    print("refused", type(e).__name__, "Weights only load failed" in msg, "RunConfig" in msg,
          "add_safe_globals" in msg)
print("full_load", roundtrip(cfg_ckpt, weights_only=False)["cfg"].depth)
torch.serialization.add_safe_globals([RunConfig])
print("safe_global", roundtrip(cfg_ckpt, weights_only=True)["cfg"] == RunConfig(4))
print("listed", RunConfig in torch.serialization.get_safe_globals())
torch.serialization.clear_safe_globals()
print("cleared", RunConfig in torch.serialization.get_safe_globals())


class Opaque:
    pass


with torch.serialization.safe_globals([Opaque]):
    print("ctx_safe", type(roundtrip(Opaque(), weights_only=True)).__name__)
try:
    roundtrip(Opaque(), weights_only=True)
except pickle.UnpicklingError:
    print("ctx_restored refused")
for obj in (slice(1, 3), {1, 2}, complex(1, 2), bytearray(b"ab"), torch.float64, torch.device("cpu"), torch.Size([2])):
    try:
        print("wo", type(obj).__name__, roundtrip(obj, weights_only=True))
    except pickle.UnpicklingError:
        print("wo", type(obj).__name__, "refused")

for loc in ("cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda storage, location: storage):
    out = roundtrip({"w": w}, map_location=loc, weights_only=True)
    print("map_location", type(loc).__name__, out["w"].device, torch.equal(out["w"], w))

with tempfile.TemporaryDirectory() as d:
    new_path, old_path = os.path.join(d, "new.pt"), os.path.join(d, "old.pt")
    torch.save(state["weights"], new_path)
    torch.save(state["weights"], old_path, _use_new_zipfile_serialization=False)
    import zipfile
    print("formats", zipfile.is_zipfile(new_path), os.path.getsize(old_path) > 0)
    print("legacy_load", torch.equal(torch.load(old_path, weights_only=True)["w"], w),
          list(torch.load(new_path, weights_only=True)))
    torch.save([1, 2], os.path.join(d, "p2.pt"), pickle_protocol=2)
    print("protocol2", torch.load(os.path.join(d, "p2.pt")))
    with open(os.path.join(d, "fh.pt"), "wb") as fh:
        torch.save(torch.tensor([3, 4]), fh)
    with open(os.path.join(d, "fh.pt"), "rb") as fh:
        print("file_handle", torch.load(fh).tolist())
    with open(os.path.join(d, "junk.pt"), "wb") as fh:
        fh.write(b"not a checkpoint at all")
    for path in (os.path.join(d, "junk.pt"), os.path.join(d, "missing.pt")):
        try:
            torch.load(path)
        except Exception as e:
            print("bad_file", type(e).__name__)
    raw = open(new_path, "rb").read()
    try:
        torch.load(io.BytesIO(raw[: len(raw) // 2]))
    except Exception as e:
        print("truncated", isinstance(e, RuntimeError))
buf = io.BytesIO()
torch.save(w, buf)
print("bytes_reuse", buf.tell() > 0, torch.equal(torch.load(io.BytesIO(buf.getvalue())), w))
for kw in ({"map_location": "cuda:0"}, {"mmap": True}):
    try:
        torch.load(io.BytesIO(buf.getvalue()), **kw)
    except (RuntimeError, ValueError) as e:
        print("load_refused", list(kw), type(e).__name__, str(e)[:70])

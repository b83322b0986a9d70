"""default_collate and default_convert as DataLoader applies them to what datasets return: nested dicts of
tuples, namedtuples, numpy arrays and numpy scalars, Python ints/floats/bools/strings, bytes, lists of
sequences, mixed tensor dtypes, and the errors of ragged batches; plus a custom collate that wraps the
default and a collate_fn_map extension for a user type."""

from collections import OrderedDict, namedtuple

import numpy as np
import torch
from torch.utils.data import DataLoader, default_collate, default_convert
from torch.utils.data._utils.collate import collate, default_collate_fn_map

Sample = namedtuple("Sample", ["image", "label", "meta"])


def describe(obj, depth=0):
    """A type-and-value sketch of a collated batch."""
    if isinstance(obj, torch.Tensor):
        vals = [round(v, 4) for v in obj.flatten().tolist()]
        return f"T{tuple(obj.shape)}:{str(obj.dtype).replace('torch.', '')}:{vals}"
    if isinstance(obj, np.ndarray):
        return f"np{obj.shape}:{obj.dtype}"
    if isinstance(obj, dict):
        return type(obj).__name__ + "{" + ", ".join(f"{k}: {describe(v, depth + 1)}" for k, v in obj.items()) + "}"
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj).__name__ + "(" + ", ".join(describe(v, depth + 1) for v in obj) + ")"
    if isinstance(obj, (list, tuple)):
        br = "[]" if isinstance(obj, list) else "()"
        return br[0] + ", ".join(describe(v, depth + 1) for v in obj) + br[1]
    return repr(obj)


rng = np.random.default_rng(7)
imgs = [rng.standard_normal((2, 2)).astype(np.float32) for _ in range(3)]

batch = default_collate([{"img": torch.from_numpy(im), "y": i, "w": 0.5 * i, "ok": i % 2 == 0, "name": f"n{i}"}
                         for i, im in enumerate(imgs)])
print("dict", describe({k: v for k, v in batch.items() if k != "img"}))
print("img", tuple(batch["img"].shape), round(batch["img"].sum().item(), 4))

samples = [Sample(np.full((2,), i, dtype=np.int16), np.int64(i), {"id": (i, str(i))}) for i in range(3)]
print("namedtuple", describe(default_collate(samples)))
print("np_scalars", describe(default_collate([np.float64(1.5), np.float64(2.5)])),
      describe(default_collate([np.int32(3), np.int32(4)])),
      describe(default_collate([np.bool_(True), np.bool_(False)])))
print("np_arrays", describe(default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])])))
print("lists", describe(default_collate([[1, 2, 3], [4, 5, 6]])))
print("tuples", describe(default_collate([(1, 2.0), (3, 4.0)])))
print("nested", describe(default_collate([[(1, [2.0])], [(3, [4.0])]])))
print("ordered", describe(default_collate([OrderedDict(b=1, a=2), OrderedDict(b=3, a=4)])))
print("strings", default_collate(["cat", "dog"]), default_collate([b"x", b"y"]))
print("mixed_tensors", describe(default_collate([torch.tensor([1, 2]), torch.tensor([3, 4])])),
      describe(default_collate([torch.tensor(1.0, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64)])))
print("ints_floats", default_collate([1, 2]).dtype, default_collate([1.0, 2]).dtype,
      default_collate([True, False]).dtype)

print("convert_np", describe(default_convert(np.arange(3))), describe(default_convert(np.float32(2.0))))
print("convert_nested", describe(default_convert({"a": np.ones(2), "b": [np.zeros(1), 3], "c": "s"})))
print("convert_nt", describe(default_convert(Sample(np.array([1]), 2, "m"))))
print("convert_str_arr", describe(default_convert(np.array(["a", "b"]))))
print("convert_obj", describe(default_convert(np.array([1, "a"], dtype=object))))

for bad in ([torch.zeros(2), torch.zeros(3)], [[1, 2], [3]], [{"a": 1}, {"b": 2}], [object(), object()],
            [np.array(["a", "b"]), np.array(["c", "d"])], [torch.tensor(1), np.int64(2)]):
    try:
        out = default_collate(bad)
        print("no error", describe(out))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:100])


class Box:
    def __init__(self, v):
        self.v = v


def collate_box(batch, *, collate_fn_map=None):
    return torch.tensor([b.v for b in batch]) * 10


custom_map = {**default_collate_fn_map, Box: collate_box}
print("fn_map", describe(collate([{"b": Box(1), "t": 2}, {"b": Box(3), "t": 4}], collate_fn_map=custom_map)))


def pad_collate(batch):
    seqs, labels = zip(*batch)
    lens = [len(s) for s in seqs]
    out = torch.zeros(len(seqs), max(lens), dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.as_tensor(s)
    return out, torch.tensor(lens), default_collate(labels)


data = [([1, 2, 3], 0), ([4], 1), ([5, 6], 0), ([7, 8, 9, 10], 1), ([11], 0)]
for xb, lb, yb in DataLoader(data, batch_size=2, collate_fn=pad_collate):
    print("padded", xb.tolist(), lb.tolist(), yb.tolist())
loader = DataLoader([{"x": np.float32(i), "s": str(i)} for i in range(5)], batch_size=2)
print("loader_dicts", [describe(b) for b in loader])
print("loader_no_batch", [describe(b) for b in DataLoader([np.arange(2), np.arange(2) + 1], batch_size=None)])
print("pin_memory_flag", DataLoader(data).pin_memory, DataLoader(data, batch_size=3).batch_size)

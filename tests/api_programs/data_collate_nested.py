"""default_collate and default_convert on what datasets really return: nested dicts of tuples, namedtuples,
numpy arrays and numpy scalars, Python ints/floats/bools/strings, bytes, lists of lists (transposed), tensors of
every dtype, the dtypes and shapes that come out, collate_fn_map extension through torch.utils.data._utils.collate,
and the errors of ragged tensors, ragged lists and unsupported element types."""

from collections import OrderedDict, namedtuple

import numpy as np
import torch
from torch.utils.data import DataLoader, default_collate, default_convert
from torch.utils.data._utils.collate import collate, default_collate_fn_map


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:140])


def describe(x, depth=0):
    if isinstance(x, torch.Tensor):
        return f"Tensor{tuple(x.shape)}:{x.dtype}:{x.flatten().tolist()[:6]}"
    if isinstance(x, np.ndarray):
        return f"ndarray{x.shape}:{x.dtype}"
    if isinstance(x, dict):
        return type(x).__name__ + "{" + ", ".join(f"{k}: {describe(v)}" for k, v in x.items()) + "}"
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x).__name__ + "(" + ", ".join(f"{f}={describe(getattr(x, f))}" for f in x._fields) + ")"
    if isinstance(x, (list, tuple)):
        return type(x).__name__ + "[" + ", ".join(describe(v) for v in x) + "]"
    return f"{type(x).__name__}:{x!r}"


Sample = namedtuple("Sample", ["image", "label", "meta"])
samples = [
    {"img": torch.full((2, 2), float(i)), "box": np.array([i, i + 1.5], dtype=np.float32), "label": i,
     "score": 0.5 * i, "flag": i % 2 == 0, "name": f"img{i}.png", "pair": (i, float(i)),
     "nested": {"ids": [i, i + 10], "mask": torch.tensor([True, i > 0])}}
    for i in range(3)
]
print("dict", describe(default_collate(samples)))
nt = [Sample(torch.arange(3) + i, i, {"w": np.float64(i) / 4, "h": np.int32(i)}) for i in range(2)]
out = default_collate(nt)
print("namedtuple", describe(out), type(out).__name__)
print("lists_transposed", describe(default_collate([[1, 2, 3], [4, 5, 6]])))
print("tuple_of_tuples", describe(default_collate([((1, 2), "a"), ((3, 4), "b")])))
print("ordered", describe(default_collate([OrderedDict(b=1, a=2.0), OrderedDict(b=3, a=4.0)])))
for dt in (torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.float64, torch.bool, torch.complex64):
    print("dtype", describe(default_collate([torch.ones(2, dtype=dt), torch.zeros(2, dtype=dt)])))
print("numpy_scalars", describe(default_collate([np.float32(1.5), np.float32(2.5)])),
      describe(default_collate([np.int64(3), np.int64(4)])),
      describe(default_collate([np.bool_(True), np.bool_(False)])))
print("numpy_arrays", describe(default_collate([np.zeros((2, 3), dtype=np.int16), np.ones((2, 3), dtype=np.int16)])))
print("bytes", describe(default_collate([b"ab", b"cd"])))
print("zero_dim", describe(default_collate([torch.tensor(1.25), torch.tensor(2.5)])))

print("convert_array", describe(default_convert(np.arange(4, dtype=np.float32))))
print("convert_dict", describe(default_convert({"a": np.array([1, 2]), "b": [np.float64(3.0)], "c": "s", "d": 5})))
print("convert_nt", describe(default_convert(Sample(np.ones(2), 1, "m"))))
print("convert_str_array", describe(default_convert(np.array(["a", "b"]))))
print("convert_scalar", describe(default_convert(np.float32(0.25))))

loader = DataLoader([{"x": np.arange(3) * i, "y": i} for i in range(5)], batch_size=None)
print("unbatched", [describe(b) for b in loader][:2])
loader = DataLoader([(np.full(2, i, dtype=np.float64), str(i)) for i in range(5)], batch_size=2)
print("batched", [describe(b) for b in loader])


class Box:
    def __init__(self, v):
        self.v = v


def collate_box(batch, *, collate_fn_map=None):
    return torch.tensor([b.v for b in batch]) * 10


custom_map = {**default_collate_fn_map, Box: collate_box}
print("custom_map", describe(collate([{"b": Box(1), "t": 2}, {"b": Box(3), "t": 4}], collate_fn_map=custom_map)))
print("map_keys", sorted(k.__name__ if isinstance(k, type) else str(k) for k in default_collate_fn_map)[:8])

show_error("ragged_tensors", lambda: default_collate([torch.zeros(2), torch.zeros(3)]))
show_error("ragged_lists", lambda: default_collate([[1, 2], [3]]))
show_error("ragged_numpy", lambda: default_collate([np.zeros(2), np.zeros(3)]))
show_error("unsupported", lambda: default_collate([Box(1), Box(2)]))
show_error("object_array", lambda: default_collate([np.array([Box(1)]), np.array([Box(2)])]))
show_error("none", lambda: default_collate([None, None]))
show_error("mixed_dict_keys", lambda: default_collate([{"a": 1}, {"b": 2}]))

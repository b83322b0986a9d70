"""accelerate/Lightning-style helpers re-implemented: recursively_apply/send_to_device over nested lists, tuples,
namedtuples, dataclasses, OrderedDicts and objects with .to(), find_batch_size, pad_across_processes with
pad_first, concatenate of nested outputs, convert_outputs_to_fp32 after autocast, set_seed / seed_everything with
RNG state capture and fork_rng, a gradient-accumulation context with no_sync, unwrap_model, and the misuse errors."""

import contextlib
import os
import random
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(41)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def honor_type(obj, generator):
    return type(obj)(*list(generator)) if is_namedtuple(obj) else type(obj)(generator)


def recursively_apply(func, data, *args, test_type=torch.is_tensor, error_on_other_type=False, **kwargs):
    if isinstance(data, (tuple, list)):
        return honor_type(data, (recursively_apply(func, o, *args, test_type=test_type,
                                                   error_on_other_type=error_on_other_type, **kwargs) for o in data))
    if isinstance(data, Mapping):
        return type(data)({k: recursively_apply(func, v, *args, test_type=test_type,
                                                error_on_other_type=error_on_other_type, **kwargs)
                           for k, v in data.items()})
    if is_dataclass(data) and not isinstance(data, type):
        return type(data)(**{f.name: recursively_apply(func, getattr(data, f.name), *args, test_type=test_type,
                                                       error_on_other_type=error_on_other_type, **kwargs)
                             for f in fields(data)})
    if test_type(data):
        return func(data, *args, **kwargs)
    if error_on_other_type:
        raise TypeError(f"Unsupported types ({type(data)}) passed to `{func.__name__}`. Only nested "
                        f"list/tuple/dicts of objects that are valid for `{test_type.__name__}` should be passed.")
    return data


def send_to_device(tensor, device, non_blocking=False, skip_keys=None):
    if isinstance(tensor, (tuple, list)):
        return honor_type(tensor, (send_to_device(t, device, non_blocking, skip_keys) for t in tensor))
    if isinstance(tensor, Mapping):
        skip_keys = [skip_keys] if isinstance(skip_keys, str) else (skip_keys or [])
        return type(tensor)({k: t if k in skip_keys else send_to_device(t, device, non_blocking, skip_keys)
                             for k, t in tensor.items()})
    if hasattr(tensor, "to"):
        try:
            return tensor.to(device, non_blocking=non_blocking)
        except TypeError:
            return tensor.to(device)
    return tensor


Pair = namedtuple("Pair", ["left", "right"])


@dataclass
class Batch:
    input_ids: torch.Tensor
    mask: torch.Tensor
    meta: str = "train"


class Box:
    def __init__(self, t):
        self.t = t

    def to(self, device):
        return Box(self.t.to(device))


ids = torch.from_numpy(rng.integers(0, 50, (3, 5)))
nested = {"batch": Batch(ids, ids.ne(0)), "pair": Pair(torch.ones(2), [torch.zeros(1, 3), "tag"]),
          "od": OrderedDict(a=torch.arange(3), b=3.5), "box": Box(torch.eye(2)), "skip": torch.ones(1)}
moved = send_to_device(nested, torch.device("cpu"), non_blocking=True, skip_keys="skip")
print("types", type(moved["pair"]).__name__, type(moved["od"]).__name__, type(moved["box"]).__name__,
      type(moved["batch"]).__name__, moved["pair"].right[1], moved["od"]["b"])
print("device", moved["pair"].left.device, moved["pair"].left.device == torch.device("cpu"), str(moved["box"].t.device),
      moved["skip"] is nested["skip"], moved["od"]["a"] is nested["od"]["a"])
halves = recursively_apply(lambda t: t.half() if t.is_floating_point() else t, nested["pair"])
print("recursive", halves.left.dtype, halves.right[0].dtype, halves.right[1], type(halves).__name__)
bt = recursively_apply(lambda t: t.float(), nested["batch"])
print("dataclass", type(bt).__name__, bt.input_ids.dtype, bt.mask.dtype, bt.meta)
try:
    recursively_apply(lambda t: t, [torch.ones(1), "x"], error_on_other_type=True)
except TypeError as e:
    print("TypeError |", str(e)[:90])


def find_batch_size(data):
    if isinstance(data, (tuple, list)):
        return find_batch_size(data[0])
    if isinstance(data, Mapping):
        for k in data.keys():
            return find_batch_size(data[k])
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"Can only find the batch size of tensors but got {type(data)}.")
    return data.shape[0]


print("batch size", find_batch_size({"x": [ids, 1]}), find_batch_size((torch.zeros(7, 2),)))


def pad_across_processes(tensor, dim=0, pad_index=0, pad_first=False, max_size=None):
    if dim >= len(tensor.shape):
        return tensor
    size = torch.tensor(tensor.shape, device=tensor.device)[None]
    max_size = max_size if max_size is not None else int(size[:, dim].max())
    if max_size == tensor.shape[dim]:
        return tensor
    new_size = list(tensor.shape)
    new_size[dim] = max_size
    new_tensor = tensor.new_zeros(tuple(new_size)) + pad_index
    idx = tuple(slice(max_size - tensor.shape[dim], max_size) if (pad_first and i == dim) else
                slice(0, tensor.shape[dim]) if i == dim else slice(None) for i in range(len(new_size)))
    new_tensor[idx] = tensor
    return new_tensor


seqs = [torch.arange(1, 4), torch.arange(1, 6), torch.arange(1, 3)]
width = max(s.shape[0] for s in seqs)
print("pad last", torch.stack([pad_across_processes(s, 0, -100, max_size=width) for s in seqs]).tolist())
print("pad first", torch.stack([pad_across_processes(s, 0, 0, True, max_size=width) for s in seqs]).tolist())
print("pad dim", pad_across_processes(torch.ones(2, 2), dim=3).shape,
      pad_across_processes(ids, 1, 9, max_size=7)[0].tolist())


def concatenate(data, dim=0):
    if isinstance(data[0], (tuple, list)):
        return honor_type(data[0], (concatenate([d[i] for d in data], dim=dim) for i in range(len(data[0]))))
    if isinstance(data[0], Mapping):
        return type(data[0])({k: concatenate([d[k] for d in data], dim=dim) for k in data[0].keys()})
    if not isinstance(data[0], torch.Tensor):
        raise TypeError(f"Can only concatenate tensors but got {type(data[0])}")
    return torch.cat(data, dim=dim)


outs = [{"logits": torch.ones(2, 3) * i, "aux": Pair(torch.full((2,), i), torch.zeros(2, 1))} for i in range(3)]
cat = concatenate(outs)
print("concatenate", tuple(cat["logits"].shape), cat["aux"].left.tolist(), type(cat["aux"]).__name__,
      cat["aux"].left.dtype)


def convert_to_fp32(tensor):
    return recursively_apply(lambda t: t.float(), tensor,
                             test_type=lambda t: torch.is_tensor(t) and t.dtype in (torch.float16, torch.bfloat16))


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(size=p.shape) * 0.5))
xb = torch.from_numpy(rng.normal(size=(6, 4))).float()
with torch.autocast("cpu", dtype=torch.bfloat16):
    raw = {"out": model(xb), "ids": ids, "list": [model[0](xb)]}
fp32 = convert_to_fp32(raw)
print("autocast", raw["out"].dtype, fp32["out"].dtype, fp32["ids"].dtype, fp32["list"][0].dtype, r(fp32["out"][0], 2))


def set_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)
    return seed


set_seed(123, deterministic=True)
a = (random.random(), np.random.rand(), torch.rand(3))
state = torch.get_rng_state()
b = torch.rand(3)
torch.set_rng_state(state)
print("seed", os.environ["PL_GLOBAL_SEED"], torch.initial_seed(), torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled(), state.dtype, torch.equal(torch.rand(3), b))
set_seed(123)
print("repeat", random.random() == a[0], np.random.rand() == a[1], torch.equal(torch.rand(3), a[2]))
torch.use_deterministic_algorithms(False)
with torch.random.fork_rng(devices=[]):
    torch.manual_seed(0)
    inner = torch.rand(2)
after = torch.rand(3)
set_seed(123)
torch.rand(3)
print("fork_rng", torch.equal(after, torch.rand(3)), inner.shape)
g = torch.Generator().manual_seed(7)
g2 = torch.Generator()
g2.set_state(g.get_state())
print("generator", g.initial_seed(), torch.equal(torch.randn(4, generator=g), torch.randn(4, generator=g2)), g.device)


class Wrapper(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *a, **k):
        return self.module(*a, **k)

    @contextlib.contextmanager
    def no_sync(self):
        self.syncing = False
        yield
        self.syncing = True


def unwrap_model(m):
    while isinstance(m, Wrapper) or hasattr(m, "_orig_mod"):
        m = m.module if isinstance(m, Wrapper) else m._orig_mod
    return m


wrapped = Wrapper(Wrapper(model))
print("unwrap", unwrap_model(wrapped) is model, list(wrapped.state_dict().keys())[:2])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
accum, yb = 3, torch.from_numpy(rng.integers(0, 2, 6))
full_grads = None
for step in range(6):
    sync = (step + 1) % accum == 0
    ctx = contextlib.nullcontext() if sync else wrapped.no_sync()
    with ctx:
        loss = F.cross_entropy(wrapped(xb[step:step + 1]), yb[step:step + 1]) / accum
        loss.backward()
    if sync:
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=2.0)
        print("sync step", step, r(total), r(model[2].bias.grad), getattr(wrapped, "syncing", None))
        opt.step()
        opt.zero_grad()
print("after accumulate", r(model[2].weight[0]), model[0].weight.grad)
for fn in [lambda: find_batch_size([]), lambda: find_batch_size({"a": "text"}), lambda: concatenate([1, 2]),
           lambda: torch.device("gpu"), lambda: ids.to("meta").sum().item(),
           lambda: torch.set_rng_state(torch.zeros(3)), lambda: torch.Generator().manual_seed(-1).initial_seed()]:
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:130])

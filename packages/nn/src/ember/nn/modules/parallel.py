"""`DataParallel`: PyTorch's single-process wrapper, here on one device (ember runs one device per
process), so that programs written for it run unchanged and save `module.`-prefixed state dicts;
and the functions it is made of in PyTorch (`scatter`, `gather`, `replicate`, `parallel_apply`,
`data_parallel`), with the same one-device meaning."""

from __future__ import annotations

from collections.abc import Sequence

from ember import autograd as ea
from ember.core import Tensor, cuda
from ember.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel", "scatter", "gather", "replicate", "parallel_apply"]


def _device(d):
    if isinstance(d, int):
        return "cpu" if d == -1 else f"cuda:{d}"
    return d


def scatter(inputs, target_gpus: Sequence, dim: int = 0) -> list:
    """Split every tensor in `inputs` (nested in tuples, lists and dicts) into one chunk per target device
    along `dim`, moved there; other objects are repeated."""
    devices = [_device(g) for g in target_gpus]

    def split(obj):
        if isinstance(obj, Tensor):
            return [c.to(d) for c, d in zip(ea.chunk(obj, len(devices), dim), devices)]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(split, obj)))
        if isinstance(obj, list) and obj:
            return [list(x) for x in zip(*map(split, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(zip(obj.keys(), x)) for x in zip(*map(split, obj.values()))]
        return [obj for _ in devices]

    return split(inputs)


def gather(outputs, target_device, dim: int = 0):
    """Concatenate the per-device `outputs` (tensors, or tuples/lists/dicts of them) along `dim` on
    `target_device` (-1: the CPU)."""
    device = _device(target_device)
    first = outputs[0]
    if isinstance(first, Tensor):
        return ea.cat([o.to(device) for o in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((k, gather([o[k] for o in outputs], target_device, dim)) for k in first)
    return type(first)(gather(list(parts), target_device, dim) for parts in zip(*outputs))


def replicate(network: Module, devices: Sequence, detach: bool = False) -> list[Module]:
    """Copies of `network` on `devices` sharing its parameters; ember runs one device per process, so
    only one device is accepted and the copy is `network` itself."""
    if len(devices) != 1:
        raise NotImplementedError(f"replicate: ember runs one device per process; got devices {list(devices)}")
    return [network]


def parallel_apply(modules: Sequence[Module], inputs: Sequence, kwargs_tup: Sequence[dict] | None = None,
                   devices: Sequence | None = None) -> list:
    """`modules[i](*inputs[i], **kwargs_tup[i])` for each i (in turn: one device per process)."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    kwargs_tup = kwargs_tup if kwargs_tup is not None else [{} for _ in modules]
    return [m(*(x if isinstance(x, list | tuple) else (x,)), **kw) for m, x, kw in zip(modules, inputs, kwargs_tup)]


def data_parallel(module: Module, inputs, device_ids: Sequence | None = None, output_device=None, dim: int = 0,
                  module_kwargs: dict | None = None):
    """The functional form of `DataParallel`: `module(*inputs, **module_kwargs)` on its device, the result
    gathered on `output_device` when one is given."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    out = module(*inputs, **(module_kwargs or {}))
    if output_device is None:
        return out
    return gather([out], output_device, dim)


class DataParallel(Module):
    """Runs `module` on its device; `device_ids` beyond the first are not used. Without CUDA, `device_ids` is
    `[]` and there is no `output_device`, as PyTorch's (`dim` stays for `scatter`/`gather`)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        if not cuda.is_available():
            self.device_ids = []
            return
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    def replicate(self, module: Module, device_ids: Sequence) -> list[Module]:
        return replicate(module, device_ids)

    def scatter(self, inputs, kwargs, device_ids: Sequence):
        n = len(device_ids)
        ins = scatter(inputs, device_ids, self.dim) if inputs else [() for _ in range(n)]
        kws = scatter(kwargs, device_ids, self.dim) if kwargs else [{} for _ in range(n)]
        return tuple(ins), tuple(kws)

    def parallel_apply(self, replicas: Sequence[Module], inputs: Sequence, kwargs: Sequence[dict]) -> list:
        return parallel_apply(replicas, inputs, kwargs)

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, self.dim)

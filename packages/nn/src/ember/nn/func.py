"""`torch.func.functional_call` and `stack_module_state`: run a module with parameters and buffers
given as a dict, so a model becomes a function of its weights (for `ember.autograd.func.grad`,
`vmap` over an ensemble, meta-learning). `ember.nn.utils.stateless` is the deprecated spelling."""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterator, Mapping, Sequence

from ember.core import stack
from ember.core.tensor import Tensor

from ember.nn.modules.module import Module

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def _merge(dicts) -> dict[str, Tensor]:
    if isinstance(dicts, Mapping):
        return dict(dicts)
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = collections.Counter(k for d in dicts for k in d)
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


@contextlib.contextmanager
def _reparametrized(module: Module, tensors: dict[str, Tensor], tie_weights: bool, strict: bool) -> Iterator[None]:
    """Within the block, `module`'s parameters and buffers named in `tensors` are those tensors."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(dict(module.named_buffers(remove_duplicate=False)))
    plan = dict(tensors)
    if tie_weights:  # a tensor registered under several names follows whichever name was given
        by_id: dict[int, list[str]] = {}
        for name, t in named.items():
            if t is not None:
                by_id.setdefault(id(t), []).append(name)
        for names in by_id.values():
            given = [n for n in names if n in tensors]
            if len(given) > 1 and any(tensors[g] is not tensors[given[0]] for g in given):
                raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. Consider "
                                 "using tie_weights=False")
            if given:
                for n in names:
                    plan.setdefault(n, tensors[given[0]])
    if strict:
        missing = sorted(set(named) - set(plan))  # a tied name is given with its twin
        unexpected = sorted(set(tensors) - set(named))
        if missing or unexpected:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    saved = []
    try:
        for name, value in plan.items():
            path, _, attr = name.rpartition(".")
            owner = module.get_submodule(path)
            for store in ("_parameters", "_buffers"):
                d = owner.__dict__[store]
                if attr in d:
                    saved.append((d, attr, d[attr]))
                    d[attr] = value
                    break
            else:  # an attribute (a parametrized tensor: its setter runs right_inverse), set as PyTorch's swap_tensor
                old = getattr(owner, attr, _ABSENT)
                if old is not _ABSENT and not isinstance(old, Tensor):
                    raise TypeError(f"attribute `{attr}`: {old} is not an instance of torch.Tensor")
                saved.append((owner, attr, old))
                setattr(owner, attr, value)
        yield
    finally:
        for d, attr, old in reversed(saved):
            if isinstance(d, Module):
                if old is _ABSENT:
                    delattr(d, attr)
                else:
                    setattr(d, attr, old)
            elif old is _ABSENT:
                d.pop(attr, None)
            else:
                d[attr] = old


_ABSENT = object()


def functional_call(module: Module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """`module(*args, **kwargs)` with the parameters and buffers named in `parameter_and_buffer_dicts`
    (a dict, or a sequence of dicts with distinct keys) in place of its own, which are untouched.

    Raises:
        RuntimeError: `strict` and a key is missing or unexpected.
        ValueError: a key is given twice, or tied weights get different values.
    """
    tensors = _merge(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, tensors, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and the buffers of same-architecture `models`, each stacked along a new dim 0
    (parameters as new leaves that require grad where the originals did), for `vmap` over an
    ensemble through `functional_call`."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {}
    for name, p in models[0].named_parameters():
        s = stack([dict(m.named_parameters())[name].detach() for m in models])
        params[name] = s.requires_grad_() if p.requires_grad else s
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models]) for name, _ in models[0].named_buffers()}
    return params, buffers


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """Make every BatchNorm of `root` (itself included) use batch statistics always, in place: running
    statistics become None and `track_running_stats` False, so `vmap` over it updates no buffer.
    Returns `root`."""
    from ember.nn.modules.normalization import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root

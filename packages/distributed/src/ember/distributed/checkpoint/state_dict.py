"""A model's and its optimizers' state dicts keyed by parameter names (torch.distributed.checkpoint.state_dict).

An optimizer's own `state_dict()` numbers its parameters; these helpers name them by their fully qualified
names in the model ("0.weight"), so a checkpoint stays valid when the optimizer's parameter order or the
wrappers around the model (DistributedDataParallel's `module.`, a compiled module's `_orig_mod.`) change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ember.autograd import no_grad, tensor, zeros_like
from ember.core.tensor import Tensor

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]


@dataclass
class StateDictOptions:
    """How the helpers build and apply state dicts.

    full_state_dict, cpu_offload: the whole tensors, on the CPU (what one process or DDP holds already);
    ignore_frozen_params: leave out parameters that do not require grad; strict: `load_state_dict`'s;
    flatten_optimizer_state_dict: the optimizer's state as one flat dict ("state.0.weight.exp_avg");
    broadcast_from_rank0: set only rank 0's values and broadcast them (needs full_state_dict).
    """

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _options(options: StateDictOptions | None) -> StateDictOptions:
    options = options or StateDictOptions()
    if options.broadcast_from_rank0 and not options.full_state_dict:
        raise ValueError("full_state_dict must be True when broadcast_from_rank0 is True.")
    return options


def _fqn(model, key: str) -> str:
    """`key` of `model.state_dict()` without the wrappers' segments (DDP's `module`, `_orig_mod`)."""
    parts, kept, mod = key.split("."), [], model
    for p in parts[:-1]:
        wrapper = (p == "module" and type(mod).__name__ == "DistributedDataParallel") or p == "_orig_mod"
        mod = getattr(mod, p, None)
        if not wrapper:
            kept.append(p)
    return ".".join(kept + parts[-1:])


def _optimizers(optimizers) -> list:
    return [optimizers] if hasattr(optimizers, "param_groups") else list(optimizers)


def get_model_state_dict(model, *, submodules=None, options: StateDictOptions | None = None) -> dict[str, Any]:
    """`model.state_dict()` keyed by fully qualified names (wrappers' segments removed).

    Example:
        >>> import ember.nn as nn
        >>> list(get_model_state_dict(nn.Sequential(nn.Linear(2, 1))))
        ['0.weight', '0.bias']
    """
    options = _options(options)
    frozen = {id(p) for p in model.parameters() if not p.requires_grad} if options.ignore_frozen_params else set()
    params = dict(model.named_parameters())
    out = {}
    for key, value in model.state_dict().items():
        if key in params and id(params[key]) in frozen:
            continue
        if options.cpu_offload and isinstance(value, Tensor):
            value = value.cpu()
        out[_fqn(model, key)] = value
    if submodules is not None:
        names = [n for n, m in model.named_modules() if m in submodules]
        out = {k: v for k, v in out.items() if any(k.startswith(n + ".") for n in names)}
        if not options.keep_submodule_prefixes:
            out = {k.split(".", 1)[1] if "." in k else k: v for k, v in out.items()}
    return out


def _names(model) -> dict[int, str]:
    """Each parameter's fully qualified name, by id (the first name of a shared one)."""
    names: dict[int, str] = {}
    for key, p in model.named_parameters():
        names.setdefault(id(p), _fqn(model, key))
    return names


def _init_optim_state(opt) -> None:
    """Give an optimizer that has not stepped its state, as PyTorch does: unless a parameter has a gradient
    already, one step with zero gradients and a learning rate of 0 (which changes no parameter), then
    `zero_grad(set_to_none=True)`."""
    if opt.state or any(p.grad is not None for g in opt.param_groups for p in g["params"]):
        return
    for g in opt.param_groups:
        for p in g["params"]:
            if p.requires_grad:
                p.grad = zeros_like(p)
    lrs = [g["lr"] for g in opt.param_groups if "lr" in g]
    for g in opt.param_groups:
        if "lr" in g:
            g["lr"] = tensor(0.0) if isinstance(g["lr"], Tensor) else 0.0
    with no_grad():
        opt.step()
    for g in opt.param_groups:
        if "lr" in g:
            g["lr"] = lrs.pop(0)
    opt.zero_grad(set_to_none=True)


def _flatten_optim(osd: dict) -> dict[str, Any]:
    flat = {f"state.{fqn}.{k}": v for fqn, st in osd["state"].items() for k, v in st.items()}
    for g in osd["param_groups"]:
        for fqn in g["params"]:
            flat.update({f"param_groups.{fqn}.{k}": v for k, v in g.items() if k != "params"})
    return flat


def get_optimizer_state_dict(model, optimizers, *, submodules=None,
                             options: StateDictOptions | None = None) -> dict[str, Any]:
    """The optimizers' state dict with parameters named by their fully qualified names:
    `{"state": {fqn: {...}}, "param_groups": [{..., "params": [fqn, ...]}]}` (several optimizers merged).
    An optimizer that has not stepped gets its state first (zeros), as PyTorch's."""
    options = _options(options)
    names = _names(model)
    state: dict[str, Any] = {}
    groups: list[dict] = []
    for opt in _optimizers(optimizers):
        _init_optim_state(opt)
        osd = opt.state_dict()
        by_index = [names[id(p)] for g in opt.param_groups for p in g["params"]]
        for i, st in osd["state"].items():
            state[by_index[i]] = {k: (v.cpu() if options.cpu_offload and isinstance(v, Tensor) else v)
                                  for k, v in st.items()}
        groups += [{**g, "params": [by_index[i] for i in g["params"]]} for g in osd["param_groups"]]
    out = {"state": state, "param_groups": groups}
    return _flatten_optim(out) if options.flatten_optimizer_state_dict else out


def get_state_dict(model, optimizers, *, submodules=None,
                   options: StateDictOptions | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """`(get_model_state_dict(model), get_optimizer_state_dict(model, optimizers))`."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def set_model_state_dict(model, model_state_dict: dict[str, Any], *, options: StateDictOptions | None = None):
    """Load `model_state_dict` (keyed by fully qualified names) into `model`; returns `load_state_dict`'s
    missing and unexpected keys.

    Raises:
        RuntimeError: missing or unexpected keys while `options.strict` (the default).
    """
    options = _options(options)
    keys = {_fqn(model, k): k for k in model.state_dict()}
    sd = {keys.get(k, k): v for k, v in model_state_dict.items()}
    if options.broadcast_from_rank0:
        _broadcast_from_rank0(model, sd)
    return model.load_state_dict(sd, strict=options.strict)


def _broadcast_from_rank0(model, sd: dict[str, Any]) -> None:
    """Fill `sd` on every rank with rank 0's values (only rank 0 needs to hold them)."""
    from ember.distributed import c10d

    if not c10d.is_initialized():
        return
    for key, own in model.state_dict().items():
        buf = sd[key].clone() if key in sd and c10d.get_rank() == 0 else own.clone()
        c10d.broadcast(buf, src=0)
        sd[key] = buf


def _unflatten_optim(flat: dict[str, Any], fqns: list[str]) -> dict[str, Any]:
    """The nested optimizer state dict of a flattened one (parameter names may contain dots)."""
    state: dict[str, dict] = {}
    groups: dict[str, dict] = {}
    longest = sorted(fqns, key=len, reverse=True)
    for key, value in flat.items():
        head, _, rest = key.partition(".")
        fqn = next((f for f in longest if rest.startswith(f + ".")), None)
        if head not in ("state", "param_groups") or fqn is None:
            raise KeyError(f"unexpected key {key!r} in the flattened optimizer state dict")
        (state if head == "state" else groups).setdefault(fqn, {})[rest[len(fqn) + 1:]] = value
    merged: list[dict] = []
    for fqn, g in groups.items():
        same = next((m for m in merged if all(m[k] == v for k, v in g.items() if k in m) and m.keys() - {"params"}
                     == g.keys()), None)
        if same is None:
            merged.append({**g, "params": [fqn]})
        else:
            same["params"].append(fqn)
    return {"state": state, "param_groups": merged}


def set_optimizer_state_dict(model, optimizers, optim_state_dict: dict[str, Any], *,
                             options: StateDictOptions | None = None) -> None:
    """Load an optimizer state dict keyed by fully qualified names (as `get_optimizer_state_dict` gives,
    nested or flattened) into `optimizers`."""
    _options(options)
    names = _names(model)
    if "state" not in optim_state_dict or "param_groups" not in optim_state_dict:
        optim_state_dict = _unflatten_optim(optim_state_dict, list(names.values()))
    saved_groups = optim_state_dict["param_groups"]
    for opt in _optimizers(optimizers):
        _init_optim_state(opt)
        by_index = [names[id(p)] for g in opt.param_groups for p in g["params"]]
        index = {fqn: i for i, fqn in enumerate(by_index)}
        state = {index[f]: st for f, st in optim_state_dict["state"].items() if f in index}
        groups = []
        for g in opt.param_groups:
            mine = [names[id(p)] for p in g["params"]]
            saved = next((s for s in saved_groups if mine and mine[0] in s["params"]), None)
            if saved is None:
                raise KeyError(f"the optimizer state dict has no param group holding {mine[:1]}")
            groups.append({**saved, "params": [index[f] for f in mine]})
        opt.load_state_dict({"state": state, "param_groups": groups})


def set_state_dict(model, optimizers, *, model_state_dict: dict[str, Any], optim_state_dict: dict[str, Any],
                   options: StateDictOptions | None = None):
    """`set_model_state_dict` and `set_optimizer_state_dict` together; returns the model's missing and
    unexpected keys."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys

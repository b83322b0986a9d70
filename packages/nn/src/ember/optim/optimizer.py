"""`Optimizer`: parameter groups, per-parameter state, PyTorch-format state dicts, hooks.

Subclasses implement `step`, which updates each parameter with one fused kernel call of
`ember.core.ops.optim_kernels` (no chain of small tensor ops per parameter).

NOTE [ An optimizer's step in a compiled plan ]
ember.jit records `opt.step()` inside a compiled training step as one call, and at replay asks
`opt._replay_step()` for a function that does the same update without the dispatcher: the update
kernels called directly on the parameters' flat arrays, one pass over all parameters, the
hyper-parameters (`lr`, `betas` ...) read from `param_groups` and the step counters from `state` at
every call, so an LR scheduler needs no new capture. It checks everything `step()` would have
decided otherwise (a step hook, a parameter without state, a non-contiguous, non-CPU or complex
tensor, a gradient of another shape, a subclass's own `step`) before it updates anything and
then runs `step()` itself, so a replay always does what eager would. Optimizers without such a
function (`_replay_step` returns None) are called as in eager. At more than one thread the pass
spreads its kernel calls over ember's threads (`workers.spread`, from `SPREAD_MIN` elements): every
element is updated alone, so the bits are one thread's.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, TypeAlias

import numpy as np

from ember import autograd as ea
from ember.core import Tensor, float32
from ember.core.sparse import SparseTensor
from ember.autograd.graph import RemovableHandle

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyper-parameter that each parameter group must give (no default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


# PyTorch's type aliases, which custom optimizers annotate with (`def __init__(self, params: ParamsT, ...)`)
Args: TypeAlias = tuple[Any, ...]
Kwargs: TypeAlias = dict[str, Any]
StateDict: TypeAlias = dict[str, Any]
ParamsT: TypeAlias = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


def _use_grad_for_differentiable(func: Callable) -> Callable:
    """PyTorch's decorator of an optimizer's `step` (custom optimizers copy it): the step runs with grad mode set
    to the optimizer's `differentiable` default, the caller's mode restored after."""
    @functools.wraps(func)
    def _use_grad(*args, **kwargs):
        prev = ea.is_grad_enabled()
        try:
            ea.set_grad_enabled(args[0].defaults["differentiable"])
            return func(*args, **kwargs)
        finally:
            ea.set_grad_enabled(prev)
    return _use_grad


# PyTorch's small step helpers, imported by optimizers written after its own (eager, so no compile branches)
def _get_value(x):
    return x.item() if isinstance(x, Tensor) else x


def _stack_if_compiling(x):
    return x


def _get_scalar_dtype(is_fused: bool | None = None):
    return float32 if is_fused or ea.get_default_dtype() != ea.float64 else ea.float64


def _default_to_fused_or_foreach(params: list[Tensor], differentiable: bool,
                                 use_fused: bool = False) -> tuple[bool, bool]:
    """(fused, foreach) as PyTorch defaults them: fused only when asked and every parameter is a plain tensor on
    a fused device (the CPU is one), foreach only on CUDA."""
    if differentiable:
        return False, False
    from ember.nn.parameter import Parameter
    plain = [p for p in params if p is not None]
    fused = use_fused and all(type(p) in (Tensor, Parameter) and p.device.type in ("cpu", "cuda") for p in plain)
    foreach = not fused and all(type(p) in (Tensor, Parameter) and p.device.type == "cuda" for p in plain)
    return fused, foreach


_global_optimizer_pre_hooks: dict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: dict[int, Callable] = OrderedDict()


def _check_tensor_lr(lr: Any) -> None:
    """PyTorch's check of a Tensor learning rate, before the value checks compare it with 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def _check_capturable(group: dict, p: Tensor, what: str = "params and state_steps", xla: bool = True) -> None:
    """PyTorch's AssertionError at a `capturable=True` step of a parameter on a device CUDA graphs do not reach
    (the device list it names leaves out 'xla' for Adadelta)."""
    devices = _CAPTURABLE_DEVICES if xla else _CAPTURABLE_DEVICES[:-1]
    if group.get("capturable") and p.device.type not in devices:
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def _check_fused(fused: bool | None, differentiable: bool, foreach: bool | None) -> None:
    """PyTorch's refusals of `fused=True` with `differentiable` or `foreach` (Adam, AdamW, SGD, Adagrad)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` before the `step` of every optimizer; it may return new (args, kwargs)."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` after the `step` of every optimizer."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")


def _typename(obj) -> str:
    """`torch.typename` of a non-tensor as PyTorch's message prints it: ember's modules under PyTorch's names
    (`torch.nn.modules.linear.Linear`), builtins bare."""
    cls = type(obj)
    mod = cls.__module__
    if mod in ("builtins", None):
        return cls.__qualname__
    if mod.startswith("ember."):
        mod = "torch.utils.data" + mod[len("ember.data"):] if mod.startswith("ember.data") else \
            "torch." + mod[len("ember."):]
    return f"{mod}.{cls.__qualname__}"


class Optimizer:
    """Base class: holds `param_groups` (dicts of params and hyper-parameters), `defaults` and
    `state` (a dict keyed by parameter)."""

    _differentiable_step = False  # whether `differentiable=True` steps are recorded by autograd (SGD's, Adam's)
    # per-parameter state scalars kept as 0-dim float32 tensors; a checkpoint holding them as numbers (saved before
    # PyTorch 1.12) has them converted on load, as each PyTorch optimizer's `__setstate__` does
    _tensor_scalars: tuple[str, ...] = ()

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {params.type()}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            self.__dict__.setdefault(name, OrderedDict())

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (`{"params": [...], "lr": ...}`); missing options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        # named parameters (`model.named_parameters()`): keep the names beside the tensors, as PyTorch
        named = [isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in param_group["params"]]
        if any(named):
            if not all(named):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            names, tensors = zip(*param_group["params"])
            param_group["params"] = list(tensors)
            param_group["param_names"] = list(names)  # after the caller's keys, as PyTorch's dict has it
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not (p.is_leaf or p.retains_grad or self.defaults.get("differentiable")):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & set(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters: to None (default) or zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g = g.detach()
                        p.grad = g
                    g.zero_()

    def state_dict(self) -> dict[str, Any]:
        """`{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`, PyTorch's format."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict) -> dict:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore hyper-parameters and state saved by `state_dict`; as PyTorch's, state tensors are cast
        to each parameter's dtype and device and shared with the given dict where no cast is needed."""
        state_dict = state_dict.copy()  # shallow and of the given type, as PyTorch's (a list fails on the key)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {old: p for g, s in zip(groups, saved_groups) for old, p in zip(s["params"], g["params"])}
        exact = {old: bool(s.get("fused") or s.get("capturable")) for s in saved_groups for old in s["params"]}

        def cast(param: Tensor, value: Any, on_device: bool, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                if key == "step":
                    return value.to(dtype=float32, device=param.device) if on_device else value
                if param.is_floating_point():
                    return value.to(dtype=param.dtype, device=param.device)
                return value.to(device=param.device)
            if isinstance(value, dict):
                return {k: cast(param, v, on_device, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, on_device) for v in value)
            return value

        state: defaultdict[Tensor, dict] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, exact[k])
                for key in self._tensor_scalars:
                    if key in state[id_map[k]] and not isinstance(state[id_map[k]][key], Tensor):
                        state[id_map[k]][key] = ea.tensor(float(state[id_map[k]][key]), dtype=float32)
            else:
                state[k] = v
        new_groups = []
        missing_defaults = _constructor_defaults(type(self))
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            # a checkpoint from before an option existed (maximize, foreach, ...): the option's constructor
            # default, as PyTorch's optimizers fill them in `__setstate__`
            for key, default in self.defaults.items():
                s.setdefault(key, missing_defaults.get(key, default))
            new_groups.append(s)
        self.state = state
        self.param_groups = new_groups
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` before each `step`; it may return new (args, kwargs)."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` after each `step`."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks: dict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer)` before `state_dict` packs the state."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer, state_dict)` after `state_dict`; it may return a replacement dict."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer, state_dict)` before `load_state_dict`; it may return a replacement dict."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer)` after `load_state_dict` has restored the state."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def _replay_step(self, exact: bool = True) -> Callable[[], Any] | None:
        """`step()` for a compiled plan (NOTE [ An optimizer's step in a compiled plan ]), or None: called
        as in eager. `exact` False allows an update an ulp from eager's bits where that is faster."""
        return None

    def _step_hooked(self) -> bool:
        """Whether `step()` has hooks to run (its own or the global ones): a replayed step then calls it."""
        return bool(_global_optimizer_pre_hooks or _global_optimizer_post_hooks or self._optimizer_step_pre_hooks
                    or self._optimizer_step_post_hooks)

    def _closure_loss(self, closure: Callable | None):
        if closure is None:
            return None
        with ea.enable_grad():
            return closure()

    def step(self, closure: Callable | None = None):
        """One update of every parameter that has a gradient; `closure` re-evaluates the loss. Subclasses
        define it; the base raises a bare NotImplementedError, as PyTorch's."""
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_hooks(cls.__dict__["step"])


_REAL = (np.dtype(np.float32), np.dtype(np.float64))
# an absent optional state buffer (no momentum, no max_exp_avg_sq) as the update kernels take it: empty
_NO_BUFFER = {"f": np.empty(0, np.float32), "d": np.empty(0, np.float64)}
# parameters' elements from which a one-pass step spreads its kernel calls over ember's threads
# (`ember.core.ops.workers.spread`): each thread's range is then a few hundred microseconds of the update, past
# a sleeping worker's wake-up (NCF's 400k parameters spread measured slower than one thread's pass)
SPREAD_MIN = 1 << 20


def _step_tensor(state: dict) -> Tensor:
    """`state["step"]`, which PyTorch's update functions require to be a tensor: code written for older releases
    (A3C's shared Adam) stores a Python int there and gets PyTorch's error."""
    step = state["step"]
    if not isinstance(step, Tensor):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    return step


def _refuse_sparse(group: dict, message: str) -> None:
    """PyTorch's refusal of a sparse gradient by an optimizer without a sparse path, before its group changes."""
    for p in group["params"]:
        if type(p._grad) is SparseTensor:
            raise RuntimeError(message)


def _flat(t: Any, dtype: np.dtype | None = None) -> np.ndarray | None:
    """A contiguous real CPU tensor's elements as a flat writable numpy view (of `dtype`'s tensors
    only, when given), else None: a replayed step then runs `step()` instead."""
    if not isinstance(t, Tensor) or type(t) is SparseTensor or t._storage.device.type != "cpu":
        return None
    a = t._np()
    if a.dtype not in _REAL or (dtype is not None and a.dtype != dtype) or not a.flags.c_contiguous:
        return None
    return a.reshape(-1)


class _FlatViews:
    """`_flat` of the tensors a replayed step meets at every call (parameters, their state), kept between
    calls: a tensor's view is made again when its numpy view changes (`Tensor._npc` is replaced whenever
    its storage or geometry is: `.data =`, `set_`, `resize_`)."""

    def __init__(self) -> None:
        self._views: dict[int, tuple] = {}

    def __call__(self, t: Any, dtype: np.dtype | None = None) -> np.ndarray | None:
        npc = getattr(t, "_npc", None)
        if npc is not None and npc[0] is t._storage._raw:
            hit = self._views.get(id(t))
            if hit is not None and hit[0] is npc and (dtype is None or hit[1].dtype == dtype):
                return hit[1]
        a = _flat(t, dtype)
        if a is not None:
            self._views[id(t)] = (t._npc, a)  # holding the view tuple keeps id(t) from naming another tensor
        return a


def _constructor_defaults(cls: type) -> dict[str, Any]:
    """The keyword defaults of an optimizer class's constructor (`maximize=False`, ...)."""
    params = inspect.signature(cls.__init__).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def _with_hooks(step: Callable) -> Callable:
    """Wrap a subclass's `step`: pre/post hooks around it, run under `no_grad` (unless `differentiable`)."""
    def wrapper(self, *args, **kwargs):
        args = (self, *args)  # as PyTorch's, the hooks see `self` first in `args`
        for hook in [*_global_optimizer_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()]:
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    # PyTorch's message names the wrapped step, not the hook
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        differentiable = bool(self.defaults.get("differentiable"))
        if differentiable and not self._differentiable_step:
            raise NotImplementedError(f"{type(self).__name__}(differentiable=True) is not supported yet; ember's "
                                      "differentiable steps are SGD's, Adam's and AdamW's")
        with ea.set_grad_enabled(differentiable):
            out = step(*args, **kwargs)
        self._opt_called = True  # read by LR schedulers to warn when they step first
        for hook in [*self._optimizer_step_post_hooks.values(), *_global_optimizer_post_hooks.values()]:
            hook(self, args, kwargs)
        return out

    wrapper.__name__ = step.__name__
    wrapper.__doc__ = step.__doc__
    wrapper.__wrapped__ = step
    return wrapper

"""`Module`: the base class of every layer and model.

A module owns three ordered dicts (`_parameters`, `_buffers`, `_modules`) that attribute
assignment fills (`self.fc = Linear(...)`, `self.w = Parameter(...)`); everything else
(`parameters()`, `state_dict()`, `to()`, `train()`, hooks) walks them, exactly as PyTorch does.
"""


from __future__ import annotations

import functools
import itertools
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, TypeVar

from ember import autograd as ea
from ember.core import Tensor, dtypes
from ember.core.device import device as _device
from ember.nn.modules._hooks import (
    _EXTRA_STATE_KEY_SUFFIX, RemovableHandle, _global_backward_hooks, _global_backward_pre_hooks,
    _global_buffer_registration_hooks, _global_forward_hooks, _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs, _global_forward_pre_hooks,
    _global_module_registration_hooks, _global_parameter_registration_hooks, _run_registration_hooks,
    register_module_backward_hook, register_module_buffer_registration_hook, register_module_forward_hook,
    register_module_forward_pre_hook, register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook,
)
from ember.nn.parameter import Buffer, Parameter, UninitializedBuffer, _detached, is_lazy

__all__ = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook",
           "set_compiler"]

# NOTE [ Module.compile's compiler ]: the compiler lives in a layer above nn (ember.jit); the layer
# that holds both (ember.torch) installs it here, as device backends register with core. It is
# called as `compiler(forward, module=..., fullgraph=..., dynamic=..., mode=...)` and returns the
# callable that replaces `forward` on the instance. A callable (TorchDynamo) backend goes to
# `backend_compiler(module, backend, fullgraph=...)` instead, which returns that callable too.
_compiler: Callable | None = None
_backend_compiler: Callable | None = None


def set_compiler(compiler: Callable | None, backend_compiler: Callable | None = None) -> None:
    """Install the function (or class) `Module.compile` compiles a module's `forward` with, and the one for a
    callable backend; None removes it."""
    global _compiler, _backend_compiler
    _compiler, _backend_compiler = compiler, backend_compiler

class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


def _typename(value) -> str:
    """`torch.typename`, as PyTorch's errors name a value: a tensor's type, else the qualified name of a function or
    class (ember's ops and functionals under PyTorch's paths), else of the value's class."""
    if isinstance(value, Tensor):
        return value.type()
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if qualname is None:
        module, qualname = type(value).__module__ or "", type(value).__qualname__
    elif module == "ember.core.dispatch":  # an op: PyTorch's torch.relu is a method of its _VariableFunctions
        module, qualname = _ns(), f"_VariableFunctionsClass.{qualname}"
    elif module.startswith("ember.nn.functional"):
        module = f"{_ns()}.nn.functional"
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * num_spaces + line for line in lines)


def _set_data(t: Tensor, new: Tensor) -> None:
    """Re-point `t` at `new`'s storage, keeping the object (so optimizers holding it stay valid)."""
    t._set_meta(new._storage, new._offset, new._shape, new._strides)
    t._dtype = new._dtype



def _ns() -> str:
    """The namespace errors name classes under: `torch` under ember.torch (NOTE [ The namespace reprs name ])."""
    return dtypes._repr_namespace


# `torch.__future__`'s conversion flags: [overwrite_module_params_on_conversion, swap_module_params_on_conversion]
CONVERSION_FLAGS = [False, False]

_MIXED_BACKWARD_HOOKS = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                         "Please use only one of them.")

_NON_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _first_tensor(result) -> Tensor | None:
    """The tensor PyTorch's non-full backward hooks attach to: `result`'s first, looking into the first item of a
    list or tuple and the first tensor value of a dict; None when there is none."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next((v for v in var.values() if isinstance(v, Tensor)), None)
        elif isinstance(var, list | tuple) and var:
            var = var[0]
        else:
            return None
    return var


def _warn_non_full_backward_hook(inputs: tuple, wrapped: tuple, result) -> None:
    """PyTorch's deprecation warnings for a `register_backward_hook` hook on a module whose forward is not one
    autograd node from tensor inputs to tensor outputs (the hook then misses some gradients in PyTorch). `wrapped`:
    the inputs as forward saw them (through BackwardHookFunction, which PyTorch's non-full hooks do not add)."""
    var = _first_tensor(result)
    grad_fn = None if var is None else var.grad_fn
    if grad_fn is None:
        return
    outs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outs, tuple) and all(isinstance(r, Tensor) for r in outs)):
        warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                      "Tensors is deprecated and will be removed in future versions. This hook will be missing some "
                      f"of the grad_output. {_NON_FULL}", FutureWarning, stacklevel=4)
        return
    if not all(isinstance(i, Tensor) for i in inputs):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                      "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
                      f"missing some of the grad_input. {_NON_FULL}", FutureWarning, stacklevel=4)
        return
    out_fns = {r.grad_fn for r in outs if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=4)
    elif len(out_fns) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                      + _NON_FULL, FutureWarning, stacklevel=4)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != _next_functions_before_wrapping(grad_fn, inputs,
                                                                                                 wrapped):
        warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_input. "
                      + _NON_FULL, FutureWarning, stacklevel=4)


def _register_non_full_backward_hooks(module, inputs: tuple, wrapped: tuple, result) -> None:
    """PyTorch's deprecated `register_backward_hook`: each hook becomes a hook on the grad_fn of the output's first
    tensor, so it sees that one node's grad_inputs and grad_outputs (and may replace the grad_inputs)."""
    var = _first_tensor(result)
    if var is None or var.grad_fn is None:
        return
    for hook in module._backward_hooks.values():
        var.grad_fn.register_hook(functools.partial(hook, module))
    _warn_non_full_backward_hook(inputs, wrapped, result)


def _next_functions_before_wrapping(grad_fn, inputs: tuple, wrapped: tuple) -> set:
    """`grad_fn`'s next nodes with each input's BackwardHookFunction edge replaced by that input's own node (a
    fresh marker for a leaf, whose AccumulateGrad is no input's grad_fn)."""
    edges = {}
    for i, w in zip(inputs, wrapped):
        if isinstance(w, Tensor) and w is not i and w.grad_fn is not None:
            edges[(w.grad_fn, w.output_nr)] = i.grad_fn if i.grad_fn is not None else object()
    return {edges.get((fn, nr), fn) for fn, nr in grad_fn.next_functions}



def _compile_arguments(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None,
                       options=None, disable: bool = False) -> tuple:
    """`Module.compile(*args, **kwargs)`'s arguments bound as PyTorch's `torch.compile(self._call_impl, *args,
    **kwargs)` binds them (so a stray one raises its TypeError, naming `compile()`)."""
    return model, fullgraph, dynamic, backend, mode, disable


_compile_arguments.__qualname__ = "compile"

class Module:
    """Base class for all neural network modules; subclasses define `forward`.

    >>> import ember.autograd as torch
    >>> from ember import nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(4, 2)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> Net()
    Net(
      (fc): Linear(in_features=4, out_features=2, bias=True)
    )
    """

    training: bool
    dump_patches: bool = False
    call_super_init: bool = False
    _version: int = 1  # saved per module in `state_dict()._metadata`; `_load_from_state_dict` reads it back
    T_destination = TypeVar("T_destination", bound=dict[str, Any])  # PyTorch's class attribute, for state_dict hints

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments; got {args} and {kwargs}")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}  # plain dicts, as PyTorch's (`print(model._modules)` shows `{...}`); hooks: ordered
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None  # True/False once full/regular backward hooks are registered
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented

    # --- registration --------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (saved in `state_dict` when `persistent`, moved by `to()`, not trained)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' ({_ns()} Tensor or None "
                            "required)")
        if _global_buffer_registration_hooks:
            tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter; `None` registers the name without a tensor (like a missing bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"({_ns()}.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        if _global_parameter_registration_hooks:
            param = _run_registration_hooks(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as the attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if _global_module_registration_hooks:
            module = _run_registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path `target` (`"encoder.layers.0"`)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put `module` at the dotted path `target`; with `strict`, only replace an existing attribute."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path `target` (`"fc.weight"`)."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path `target` (`"bn.running_mean"`)."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # --- attribute protocol ----------------------------------------------------------------
    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for s in dicts_or_sets:
                if name in s:
                    if isinstance(s, dict):
                        del s[name]
                    else:
                        s.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"({_ns()}.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = d.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            if _global_module_registration_hooks:
                value = _run_registration_hooks(_global_module_registration_hooks, self, name, value)
            modules[name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"({_ns()}.nn.Module or None expected)")
            d["_modules"][name] = value
        elif isinstance(value, Buffer | UninitializedBuffer):
            if d.get("_buffers") is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value if isinstance(value, Tensor) else value.data, value.persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                f"({_ns()}.nn.Buffer, {_ns()}.Tensor or None expected)")
            if _global_buffer_registration_hooks:
                value = _run_registration_hooks(_global_buffer_registration_hooks, self, name, value)
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        attrs = dir(type(self)) + list(self.__dict__)
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        if getattr(state.get("forward"), "_module", None) is self:  # compile()d: copies run uncompiled, as PyTorch
            del state["forward"]
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)

    # --- iteration -------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter of this module (and, with `recurse`, of its submodules), once each."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """`(dotted name, parameter)` pairs, like `("fc.weight", Parameter)`."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """This module and every submodule, depth first, with dotted names ("" for self)."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # --- modes -----------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's `.grad`: to None (default) or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = g.detach()
                    p.grad = g
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call `fn` on every submodule (children first) and then on self (e.g. custom init)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # --- conversions -----------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for m in self.children():
                m._apply(fn)
        overwrite = CONVERSION_FLAGS[0] and not CONVERSION_FLAGS[1]  # swapping keeps identity, as setting data
        for key, p in self._parameters.items():
            if p is None:
                continue
            with ea.no_grad():
                new = fn(p)
            # PyTorch: a new Parameter object (and grad) replaces the old one under the overwrite flag, and
            # across the meta boundary (no shallow copy between meta and real tensors), untying shared weights
            if new is not p and (overwrite or (new.device.type == "meta") != (p.device.type == "meta")):
                fresh = Parameter(new, p.requires_grad)
                if p.grad is not None:
                    with ea.no_grad():
                        fresh.grad = fn(p.grad).requires_grad_(p.grad.requires_grad)
                self._parameters[key] = fresh
                continue
            if new is not p:
                _set_data(p, new)
            if p.grad is not None:
                with ea.no_grad():
                    g = fn(p.grad)
                if g is not p.grad:
                    _set_data(p.grad, g)
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """`to(device)`, `to(dtype)`, `to(device, dtype)` or `to(tensor)`: moves parameters and
        buffers in place; dtypes change only for floating-point tensors; `memory_format=` lays out 4-D/5-D ones."""
        dev, dt = kwargs.get("device"), kwargs.get("dtype")
        non_blocking = kwargs.get("non_blocking", False)
        for a in args:
            if isinstance(a, Tensor):
                dev, dt = a.device, a.dtype
            elif isinstance(a, dtypes.dtype):
                dt = a
            elif isinstance(a, str | _device | int) and not isinstance(a, bool):
                dev = a
            elif isinstance(a, bool):
                non_blocking = a
            else:
                raise TypeError(f"to() received an invalid combination of arguments; got {a!r}")
        if dt is not None and not (dt.is_floating_point or dt.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dt}")
        if dt is not None and dt.is_complex:
            warnings.warn("Complex modules are a new feature under active development whose design may change, "
                          "and some modules might not work as expected when using complex tensors as parameters or "
                          "buffers. Please file an issue at "
                          "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if a complex module "
                          "does not work as expected.", stacklevel=2)

        fmt = kwargs.get("memory_format")

        def convert(t: Tensor) -> Tensor:
            if dev is not None and t.is_meta and _device(dev).type != "meta":
                raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use torch.nn.Module."
                                          "to_empty() instead of torch.nn.Module.to() when moving module from meta "
                                          "to a different device.")
            if fmt is not None and t.dim() in (4, 5):
                return t.to(dev, dt if t.is_floating_point() or t.is_complex() else None, non_blocking=non_blocking,
                            memory_format=fmt)
            if dt is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(dev, dt, non_blocking=non_blocking) if dev is not None else t.to(dt)
            return t.to(dev, non_blocking=non_blocking) if dev is not None else t

        return self._apply(convert)

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device=None) -> Module:
        """PyTorch's `Module.xpu`: each tensor's `xpu` (ember has no XPU, so PyTorch's error of a build without one)."""
        return self._apply(lambda t: t.xpu(device))

    def ipu(self, device=None) -> Module:
        """PyTorch's `Module.ipu` (no IPU in ember: its error)."""
        return self._apply(lambda t: t.ipu(device))

    def mtia(self, device=None) -> Module:
        """PyTorch's `Module.mtia` (no MTIA in ember: its error)."""
        return self._apply(lambda t: t.mtia(device))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move parameters and buffers to `device` as uninitialised storage (their values are not kept)."""
        return self._apply(lambda t: ea.empty_like(t, device=device), recurse=recurse)

    def compile(self, *args, **kwargs) -> None:
        """Compile this module in place (PyTorch's `Module.compile`, whose arguments are `torch.compile`'s but the
        model): its calls run `forward` through the
        installed compiler (ember.jit's capture and replay, installed by ember.torch; docs/compile.md);
        hooks run around it eagerly. A callable `backend` (a TorchDynamo FX-graph backend) gets the module's
        FX graph (ember.torch installs that compiler). `disable=True` or no installed compiler (warned) leaves
        the module eager."""
        _, fullgraph, dynamic, backend, mode, disable = _compile_arguments(None, *args, **kwargs)
        if disable:
            return
        if callable(backend):
            if _backend_compiler is None:
                warnings.warn(f"Module.compile: backend {getattr(backend, '__name__', backend)!r} is a TorchDynamo "
                              "FX-graph backend, and no compiler for it is installed (importing ember.torch installs "
                              "one): the module stays eager", UserWarning, stacklevel=2)
                return
            self.__dict__["forward"] = _backend_compiler(self, backend, fullgraph=fullgraph)
            return
        if _compiler is None:
            warnings.warn("Module.compile: no compiler is installed (importing ember.torch installs ember.jit's): "
                          "the module stays eager", UserWarning, stacklevel=2)
            return
        forward = self.__dict__.get("forward")
        if forward is not None and type(forward) is _compiler:
            return
        self.__dict__["forward"] = _compiler(self.forward, module=self, fullgraph=fullgraph, dynamic=dynamic,
                                             mode=mode)

    # --- state dict ------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else _detached(p)
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else _detached(b)
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self) -> Any:
        """Extra (picklable) state that `state_dict` saves under `<prefix>_extra_state`; override together
        with `set_extra_state`."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Restore what `get_extra_state` returned, from `load_state_dict`."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by dotted name, detached (unless `keep_vars`)."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):  # each module's version, by prefix, as PyTorch (checkpoint upgrades)
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):  # the public hook edits in place
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items()) if v is not None}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if is_lazy(param):
                continue  # still uninitialized after the lazy module's load hook: the checkpoint's is too
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if param.dim() == 0 and tuple(input_param.shape) == (1,):
                input_param = input_param[0]  # PyTorch 0.3's checkpoints stored scalars as shape (1,)
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{input_param.shape!r} from checkpoint, the shape in current model is "
                                  f"{param.shape!r}.")
                continue
            assign = local_metadata.get("assign_to_params_buffers", False)
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                              "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign "
                              "items in the state dictionary to their corresponding key in the module instead of "
                              "copying them in place?)", UserWarning, stacklevel=3)
            try:
                with ea.no_grad():
                    if assign:
                        self._assign_loaded(name, param, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        has_extra = type(self).set_extra_state is not Module.set_extra_state
        if has_extra:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and not (has_extra and key == extra_key):
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local:
                        unexpected_keys.append(key)

    def _assign_loaded(self, name: str, param: Tensor, input_param: Tensor) -> None:
        """`load_state_dict(assign=True)`: the checkpoint's tensor becomes the attribute, a Parameter kept as is."""
        if isinstance(param, Parameter):
            if isinstance(input_param, Parameter):
                input_param.requires_grad_(param.requires_grad)
            else:
                input_param = Parameter(input_param, requires_grad=param.requires_grad)
        setattr(self, name, input_param)

    def load_state_dict(self, state_dict: dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy `state_dict`'s tensors into this module's parameters and buffers.

        Returns `(missing_keys, unexpected_keys)`; with `strict`, either non-empty raises a
        RuntimeError listing them, and a shape mismatch always raises, naming the key and shapes.
        `assign=True` makes the state dict's tensors the module's parameters and buffers (no copy).
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        # a copy, so that `_load_from_state_dict` upgrades (a BatchNorm's missing num_batches_tracked) stay ours
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module: Module, prefix: str = "") -> None:
            # PyTorch's own dict, not a copy: `assign=True` stays in the state dict's metadata for later loads
            local_metadata = metadata.get(prefix[:-1], {}) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self)
        keys = _IncompatibleKeys(missing, unexpected)
        for module in self.modules():
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, prefix, keep_vars)` before `state_dict` saves this module's tensors."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, state_dict, prefix, local_metadata)` after; it edits `state_dict` in place and returns None."""
        hook._from_public_api = True  # PyTorch's mark: state_dict refuses a return value from such a hook
        return self._register_state_dict_hook(hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)` before this module's tensors are loaded (it may rename keys)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """PyTorch's private form: `hook(state_dict, prefix, ...)`, given the module first only `with_module`."""
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        return self.register_load_state_dict_pre_hook(lambda module, *args: hook(*args))

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's private form of `register_state_dict_post_hook`: a returned dict replaces the state dict."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, incompatible_keys)` after `load_state_dict`; it may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def share_memory(self) -> Module:
        """Move every parameter and buffer to shared memory (for multiprocessing)."""
        return self._apply(lambda t: t.share_memory_())

    # --- hooks and calling -----------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """`hook(module, args)` (or `(module, args, kwargs)`) before `forward`; may replace the args."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """`hook(module, args, output)` (or `(module, args, kwargs, output)`) after `forward`; may
        replace the output. With `always_call`, it also runs (output None) when `forward` raises."""
        handle = RemovableHandle(self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs,
                                                                  self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(module, grad_input, grad_output)` when the gradients of the module's inputs are
        computed; it may return a replacement `grad_input`."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        self.__dict__["_is_full_backward_hook"] = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's deprecated non-full backward hook: `hook(module, grad_input, grad_output)` on the node that
        made the output's first tensor (a module's input gradients only when its forward is one autograd op)."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        self.__dict__["_is_full_backward_hook"] = False
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(module, grad_output)` before the module's input gradients are computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        pre = OrderedDict(itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()))
        for hid, hook in pre.items():
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        bw_hook = None
        legacy = self.__dict__.get("_is_full_backward_hook") is False  # register_backward_hook's hooks
        full_hooks = OrderedDict(itertools.chain(_global_backward_hooks.items(),
                                                 () if legacy else self._backward_hooks.items()))
        if full_hooks or self._backward_pre_hooks or _global_backward_pre_hooks:
            from ember.nn.modules._backward_hook import BackwardHook

            bw_hook = BackwardHook(self, full_hooks,
                                   OrderedDict(itertools.chain(_global_backward_pre_hooks.items(),
                                                               self._backward_pre_hooks.items())))
            unwrapped, args = args, bw_hook.setup_input_hook(args)
        try:
            result = self.forward(*args, **kwargs)
        except Exception:
            # hooks registered with always_call=True (global ones first) still see the call (with no output)
            for hid, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                if hid in self._forward_hooks_always_called or hid in _global_forward_hooks_always_called:
                    if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                        hook(self, args, kwargs, None)
                    else:
                        hook(self, args, None)
            raise
        post = OrderedDict(itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()))
        for hid, hook in post.items():
            if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook is not None:
            if not isinstance(result, Tensor | tuple):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(result)}", stacklevel=2)
            result = bw_hook.setup_output_hook(result)
        if legacy and self._backward_hooks:
            _register_non_full_backward_hooks(self, unwrapped if bw_hook is not None else args, args, result)
        return result

    __call__ = _call_impl

    # --- printing --------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in `repr` (layers override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

"""How fx names a call_function target: PyTorch's spelling of ember's functions (`torch.relu`,
`torch.nn.functional.max_pool2d`, `operator.add`), for printed graphs and generated code."""

from __future__ import annotations

import builtins
import sys
import types

# torch.nn.functional's names that PyTorch implements in C++: a call records its arguments as written (the
# others are Python functions that hand `__torch_function__` their required parameters positionally and the
# rest by keyword). Those of `torch` print as `torch.X`; the `torch._C._nn` ones as `torch.nn.functional.X`,
# since ember has no `torch._C`.
F_BUILTINS_OF_TORCH = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d", "conv2d", "conv3d",
    "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "hardshrink",
    "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
    "rrelu_", "selu_", "threshold_"})
F_BUILTINS_OF_C_NN = frozenset({
    "avg_pool2d", "avg_pool3d", "elu_", "gelu", "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "one_hot",
    "scaled_dot_product_attention", "softplus", "softshrink"})

# torch's functions PyTorch writes in Python, in torch.functional (`torch.functional.einsum`): a call passes its
# required parameters positionally and the rest by keyword, as the Python functionals' (istft is C++ there)
TORCH_FUNCTIONAL = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod", "block_diag",
    "cdist", "chain_matmul", "einsum", "lu", "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank",
    "tensordot", "unique", "unique_consecutive", "unravel_index"})
# torch's submodules whose functions PyTorch names `linalg_norm`, `special_erf`, `fft_rfft`
SUBSPACES = ("linalg", "special", "fft")
_table: dict[int, tuple[object, str]] = {}
_node_names: dict[int, str] = {}


def _names() -> dict[int, tuple[object, str]]:
    """id -> (object, PyTorch's name) of the public functions of `torch` and `torch.nn.functional`; an object
    under several names takes `torch`'s over torch.nn.functional's and its own `__name__` over an alias's
    (`torch.neg`, not `torch.negative`)."""
    if not _table:
        import ember.torch as torch
        import ember.torch.nn.functional as F

        for space, prefix in ((torch, "torch"), (F, "torch.nn.functional")):
            for name in dir(space):
                obj = getattr(space, name, None)
                if not callable(obj) or isinstance(obj, (type, types.ModuleType)) or (
                        name.startswith("_") and name != "_assert"):
                    continue
                if space is F and name in F_BUILTINS_OF_TORCH:
                    qualname = f"torch.{name}"
                elif space is torch and name in TORCH_FUNCTIONAL:
                    qualname = f"torch.functional.{name}"
                else:
                    qualname = f"{prefix}.{name}"
                old = _table.get(id(obj))
                if old is None or (getattr(obj, "__name__", None) == name and
                                   old[1].rpartition(".")[2] != name and space is torch):
                    _table[id(obj)] = (obj, qualname)
        for space in SUBSPACES:
            module = getattr(torch, space)
            for name in getattr(module, "__all__", dir(module)):
                obj = getattr(module, name, None)
                if callable(obj) and not isinstance(obj, type) and id(obj) not in _table:
                    _table[id(obj)] = (obj, f"torch.{space}.{name}")
                    _node_names[id(obj)] = f"{space}_{name}"
    return _table


def node_name(func) -> str:
    """The name a call of `func` gives its node (`linalg_norm` for torch.linalg.norm, as PyTorch's C++
    function is named; else the function's own name)."""
    _names()
    return _node_names.get(id(func)) or func.__name__


def qualified_name(func) -> str:
    """PyTorch's qualified name of `func` (`torch.relu`, `_operator.add`, `getattr`, `torch.Tensor.add`)."""
    name = getattr(func, "__name__", None) or type(func).__name__
    if getattr(builtins, name, None) is func:
        return name
    hit = _names().get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    if is_tensor_method(func):
        return f"torch.Tensor.{name}"
    module = getattr(func, "__module__", None) or ""
    if module.startswith("ember.torch."):
        module = "torch." + module[len("ember.torch."):]
    return f"{module}.{getattr(func, '__qualname__', name)}" if module else name


def is_tensor_method(func) -> bool:
    """Whether `func` is a method of Tensor (also while a trace has swapped it for its recording version)."""
    from ember.core.tensor import Tensor

    name = getattr(func, "__name__", None)
    attr = Tensor.__dict__.get(name) if isinstance(name, str) else None
    return attr is not None and (attr is func or getattr(attr, "fx_original", None) is func)


def pretty_target(target) -> str:
    """A target as a printed node shows it: `builtins.getattr`, `operator.add`, else the qualified name."""
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None)
    name = getattr(target, "__name__", None)
    if name is not None:
        if module == "builtins":
            return f"builtins.{name}"
        if module == "_operator":
            return f"operator.{name}"
    return qualified_name(target)


def resolves(qualname: str, obj) -> bool:
    """Whether `qualname` (`torch.nn.functional.relu`) names `obj` in ember (so generated code may spell it)."""
    head, _, rest = qualname.partition(".")
    if head != "torch" or not rest:
        return False
    cur = sys.modules["ember.torch"]
    for part in rest.split("."):
        try:
            cur = getattr(cur, part)
        except AttributeError:
            return False
    return cur is obj

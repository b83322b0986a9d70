"""`torch.utils.flop_counter.FlopCounterMode`: the FLOPs of matrix products and convolutions run inside it, forward
and backward, per ATen op and per module (`ModuleTracker`'s names), counted as PyTorch's formulas count them.

ember's dispatch hook sees its own primitives, so each is read as the ATen op PyTorch runs in its place: `F.linear`
is one `addmm` (with a bias) or `mm`, a convolution's kernels in backward are `convolution_backward`, a two-operand
`einsum` is PyTorch's `bmm`. An op run inside a counted one (a kernel calling another op) is not counted again.
PyTorch's CPU flash attention and `_trilinear` have no formula: `scaled_dot_product_attention` on that path and
`bilinear` count nothing, forward or backward."""

from __future__ import annotations

import math
import warnings
from collections import defaultdict

from ember.autograd import engine
from ember.autograd.graph import register_multi_grad_hook
from ember.core import dispatch as _dispatch
from ember.core.tensor import Tensor
from ember.torch._unsupported import UnsupportedError
from ember.torch.utils.module_tracker import ModuleTracker

__all__ = ["FlopCounterMode"]


class OpOverloadPacket:
    """A stand-in for `torch.ops.aten.<name>` (ember has no operator registry): the key of a flop count."""

    __module__ = "torch._ops"

    def __init__(self, name: str) -> None:
        self._qualified_op_name = f"aten::{name}"
        self._name = name

    def __str__(self) -> str:
        return f"aten.{self._name}"

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self._name}')>"


_PACKETS: dict[str, OpOverloadPacket] = {}


def _packet(name: str) -> OpOverloadPacket:
    p = _PACKETS.get(name)
    if p is None:
        p = _PACKETS[name] = OpOverloadPacket(name)
    return p


def _mm(a, b) -> int:
    return 2 * a[0] * b[1] * a[1]


def _bmm(a, b) -> int:
    return 2 * a[0] * a[1] * b[2] * a[2]


def _conv(batch: int, spatial, w) -> int:
    """PyTorch's conv_flop_count: 2 * batch * C_out * C_in/groups * prod(kernel) * prod(the spatial dims it walks)."""
    return 2 * batch * w[0] * w[1] * math.prod(w[2:]) * math.prod(spatial)


def _einsum(equation: str, operands) -> int | None:
    """PyTorch's einsum contracts its operands left to right, each pair one bmm over every index the pair shares
    or keeps (for the output or a later operand); an index only one operand has is summed out first, free."""
    eq = equation.replace(" ", "")
    if "..." in eq:
        return None
    lhs, out = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(operands) or len(terms) < 2:
        return None
    sizes = {}
    for term, op in zip(terms, operands):
        sizes.update(zip(term, op.shape))
    if out is None:
        out = "".join(sorted(c for c in sizes if lhs.count(c) == 1))
    flops, left = 0, set(terms[0])
    for i, term in enumerate(terms[1:], 1):
        right = set(term)
        needed = set(out).union(*terms[i + 1:])
        keep = (left | right) & needed
        flops += 2 * math.prod(sizes[c] for c in keep | (left & right))
        left = keep
    return flops


def _primitive(name: str, args, out, backward: bool):
    """(PyTorch's op name, flops) for an ember primitive PyTorch counts (given its result `out`), or None."""
    if name == "mm":
        return "mm", _mm(args[0].shape, args[1].shape)
    if name == "bmm":
        return "bmm", _bmm(args[0].shape, args[1].shape)
    conv = "convolution_backward" if backward else "convolution"
    if name == "conv2d":
        return conv, _conv(args[0].shape[0], out.shape[2:], args[1].shape)
    if name == "conv_transpose2d":
        x, w = args[0].shape, args[1].shape
        return conv, _conv(x[0], x[2:], w)
    if name == "conv2d_backward_input":
        g, w = args[0].shape, args[1].shape
        return "convolution_backward", _conv(g[0], g[2:], w)
    if name == "conv2d_backward_weight":
        g, x = args[0].shape, args[1].shape
        w = tuple(args[2]) if isinstance(args[2], (tuple, list)) else args[2].shape
        return "convolution_backward", 2 * g[0] * g[1] * x[1] * math.prod(w[2:]) * math.prod(g[2:])
    if name == "einsum" and isinstance(args[0], str):
        flops = _einsum(args[0], args[1:] if len(args) > 2 or not isinstance(args[1], (list, tuple)) else args[1])
        return None if flops is None else ("bmm", flops)
    return None


_COUNTED = frozenset({"mm", "bmm", "conv2d", "conv_transpose2d", "conv2d_backward_input", "conv2d_backward_weight",
                      "einsum"})


def _folds(x, w) -> bool:
    """PyTorch's matmul of an N-d input by a weight's transpose: one mm over the input's rows, or (when the rows
    would need a copy and nothing asks for the weight's gradient) a bmm over the expanded weight."""
    return w.requires_grad or x.numel() == 0 or all(x.stride(i) == x.stride(i + 1) * x.shape[i + 1]
                                                    for i in range(x.dim() - 2))


_PARAMS = {"linear": ("input", "weight", "bias"), "addmm": ("input", "mat1", "mat2"),
           "baddbmm": ("input", "batch1", "batch2"),
           "scaled_dot_product_attention": ("query", "key", "value", "attn_mask", "dropout_p")}


def _composite(name: str, args, kwargs):
    """(PyTorch's op name or None, flops) for a composite function counted whole; None to look inside."""
    if name == "bilinear":  # PyTorch's _trilinear has no formula
        return None, 0
    if name not in _PARAMS:
        return None
    a = dict(zip(_PARAMS[name], args)) | kwargs
    if name == "linear":
        x, w, bias = a["input"], a["weight"], a.get("bias")
        if w.dim() != 2 or x.dim() == 0:
            return None
        flops = 2 * math.prod(x.shape[:-1]) * w.shape[0] * w.shape[1]
        if x.dim() <= 2:
            return ("addmm" if bias is not None else "mm"), flops
        if bias is not None and x.is_contiguous():
            return "addmm", flops
        return ("mm" if _folds(x, w) else "bmm"), flops
    if name == "addmm":
        return "addmm", _mm(a["mat1"].shape, a["mat2"].shape)
    if name == "baddbmm":
        return "baddbmm", _bmm(a["batch1"].shape, a["batch2"].shape)
    from ember.nn.functional._attention import _takes_cpu_flash

    q, k, v = a["query"], a["key"], a["value"]
    flash = _takes_cpu_flash(q, k, v, a.get("dropout_p", 0.0), a.get("attn_mask"), a.get("enable_gqa", False))
    return (None, 0) if flash else None


def _suffix(number: int) -> str:
    suffixes = ["", "K", "M", "B", "T"]
    return suffixes[max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))]


def _with_suffix(number: int, suffix: str) -> str:
    return f"{number / 1000 ** ['', 'K', 'M', 'B', 'T'].index(suffix):.3f}" + suffix


def _percent(num: int, denom: int) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


class FlopCounterMode:
    """Context manager counting the FLOPs run inside it; `get_total_flops()`, `get_flop_counts()` (module name ->
    {op: flops}, with "Global" for all) and `get_table(depth)`, printed on exit when `display`."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping: dict | None = None) -> None:
        self.flop_counts: dict = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        if custom_mapping:
            raise UnsupportedError("FlopCounterMode(custom_mapping=...) is not supported by ember: it has no "
                                   "torch.ops operator packets to key formulas by; see docs/porting.md")
        self.mod_tracker = ModuleTracker()
        self._inside = self._quiet = 0

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """The counts as {module name: {op: flops}}."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None) -> str:
        """PyTorch's table (it needs the `tabulate` package, as PyTorch's does)."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        import tabulate

        tabulate.PRESERVE_WHITESPACE = True
        total = self.get_total_flops()
        suffix = _suffix(total)
        subsumed = False

        def rows(mod_name: str, indent: int) -> list:
            nonlocal subsumed
            mod_total = sum(self.flop_counts[mod_name].values())
            subsumed |= mod_total >= total
            pad = " " * indent
            out = [[pad + mod_name, _with_suffix(mod_total, suffix), _percent(mod_total, total)]]
            for op, n in self.flop_counts[mod_name].items():
                out.append([pad + " - " + str(op), _with_suffix(n, suffix), _percent(n, total)])
            return out

        values = []
        for mod in sorted(self.flop_counts.keys()):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            values.extend(rows(mod, mod.count(".")))
        if "Global" in self.flop_counts and not subsumed:
            for v in values:
                v[0] = " " + v[0]
            values = rows("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return tabulate.tabulate(values, headers=["Module", "FLOP", "% Total"], colalign=("left", "right", "right"))

    def _count(self, op: str, flops: int) -> None:
        key = _packet(op)
        for parent in set(self.mod_tracker.parents):
            self.flop_counts[parent][key] += flops

    def _hook(self, op, args, kwargs, call_next):
        if op.name not in _COUNTED:
            return call_next(op, args, kwargs)
        outermost = not self._inside
        self._inside += 1
        try:
            out = call_next(op, args, kwargs)
        finally:
            self._inside -= 1
        backward = engine.current_task_id() != -1
        if outermost and not (self._quiet and backward) and (found := _primitive(op.name, args, out, backward)):
            self._count(*found)
        return out

    def _composite_hook(self, name, fn, args, kwargs):
        found = None if self._inside else _composite(name, args, kwargs)
        if found is not None:
            self._inside += 1
        try:
            out = self._prev(name, fn, args, kwargs) if self._prev is not None else fn(*args, **kwargs)
        finally:
            if found is not None:
                self._inside -= 1
        if found is not None and found[0] is not None:
            self._count(*found)
        elif found is not None and isinstance(out, Tensor) and out.requires_grad:
            self._quiet_backward(out, [*args, *kwargs.values()])
        return out

    def _quiet_backward(self, out, args) -> None:
        """An uncounted composite's backward (PyTorch's CPU flash attention's, bilinear's) counts nothing either:
        quiet from its output's gradient until its inputs' are computed."""
        inputs = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        if not inputs:
            return

        def quiet(*_):
            self._quiet += 1

        def speak(*_):
            self._quiet -= 1

        register_multi_grad_hook([out], quiet)
        register_multi_grad_hook(inputs, speak)

    def __enter__(self) -> FlopCounterMode:
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self._inside = self._quiet = 0
        _dispatch.register_dispatch_hook(self._hook)
        self._prev = _dispatch.set_composite_hook(self._composite_hook)
        self.mode = self
        return self

    def __exit__(self, *args) -> None:
        _dispatch.remove_dispatch_hook(self._hook)
        if _dispatch._composite_hook == self._composite_hook:
            _dispatch.set_composite_hook(self._prev)
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))

"""`torch.ops.aten`: PyTorch's names for the operators ember's kernels implement, as overload objects.

ember has no ATen registry; these objects exist so that code naming ATen overloads works: a selective
checkpointing policy (`torch.ops.aten.mm.default in save_list`) is handed, for each of ember's ops, the
overload PyTorch's dispatcher would see there (`overload_of`), and the objects are one per name, so they
compare equal to what a program names. Calling one runs ember's function of that name where there is one.
"""

from __future__ import annotations

__all__ = ["OpOverload", "OpOverloadPacket", "aten", "overload_of"]

# ember's op -> ATen's "name.overload" (a callable picks by the arguments, as ATen's overloads do)
_TENSOR_OR_SCALAR = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "eq": "eq", "ne": "ne", "lt": "lt",
                     "le": "le", "gt": "gt", "ge": "ge", "remainder": "remainder", "fmod": "fmod"}
_BY_DIMS = {"sum": ("sum.default", "sum.dim_IntList"), "mean": ("mean.default", "mean.dim"),
            "amax": ("amax.default", "amax.default"), "amin": ("amin.default", "amin.default"),
            "prod": ("prod.default", "prod.dim_int"), "var": ("var.correction", "var.correction"),
            "std": ("std.correction", "std.correction")}
_RENAMED = {
    "softmax": "_softmax.default", "log_softmax": "_log_softmax.default", "conv2d": "convolution.default",
    "conv_transpose2d": "convolution.default", "layer_norm": "native_layer_norm.default",
    "batch_norm": "native_batch_norm.default", "group_norm": "native_group_norm.default",
    "to_dtype": "_to_copy.default", "transpose": "transpose.int", "select": "select.int", "slice": "slice.Tensor",
    "where": "where.self", "max_dim": "max.dim", "min_dim": "min.dim", "fill_": "fill_.Scalar",
    "native_dropout": "native_dropout.default", "nll_loss": "nll_loss_forward.default", "split": "split.Tensor",
    "unbind": "unbind.int", "index": "index.Tensor", "max_pool2d_with_indices": "max_pool2d_with_indices.default",
    "vector_norm": "linalg_vector_norm.default", "gather": "gather.default", "scatter": "scatter.src",
    "scatter_add": "scatter_add.default", "masked_fill": "masked_fill.Scalar", "clamp": "clamp.default",
    "cumsum": "cumsum.default", "topk": "topk.default", "sort": "sort.default", "pad_nd": "constant_pad_nd.default",
}
# ATen overloads a program may name that no ember op reports (sdpa's kernels, the composites ember decomposes):
# they exist, and never match
_MORE = ("addmm.default", "matmul.default", "linear.default", "t.default", "_unsafe_view.default",
         "_scaled_dot_product_flash_attention.default", "_scaled_dot_product_efficient_attention.default",
         "_scaled_dot_product_cudnn_attention.default", "_scaled_dot_product_flash_attention_for_cpu.default",
         "scaled_dot_product_attention.default", "_scaled_mm.default", "baddbmm.default", "addmv.default",
         "mv.default", "detach.default", "squeeze.dim", "squeeze.default", "pow.Tensor_Scalar", "pow.Tensor_Tensor",
         "sum.dim_IntList", "mean.dim", "convolution.default", "gelu.default", "silu.default", "relu.default",
         "embedding.default", "native_layer_norm.default", "cat.default", "reduce_scatter_tensor.default",
         "all_gather_into_tensor.default", "max.default", "upsample_bilinear2d.default",
         "upsample_bilinear2d.vec", "convolution_backward.default")


def _grid_sampler(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):
    import ember.torch as torch

    return torch.grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler_backward(grad_output, input, grid, interpolation_mode: int, padding_mode: int,
                           align_corners: bool, output_mask):
    """`(grad_input, grad_grid)`, None where `output_mask` leaves one out (StyleGAN3's grid_sample_gradfix)."""
    from ember.core.dispatch import get_op

    grads = get_op("grid_sampler_backward")(grad_output, input, grid, interpolation_mode, padding_mode, align_corners)
    return tuple(g if want else None for g, want in zip(grads, output_mask))


def _convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed: bool,
                          output_padding, groups: int, output_mask):
    """`(grad_input, grad_weight, grad_bias)` of ATen's `convolution`, None where `output_mask` leaves one out
    (StyleGAN's conv2d_gradfix): the convolution's own backward, run on detached inputs."""
    import ember.torch as torch

    F = torch.nn.functional
    nd = input.ndim - 2
    x, w = input.detach().requires_grad_(bool(output_mask[0])), weight.detach().requires_grad_(bool(output_mask[1]))
    wanted = [t for t, want in zip((x, w), output_mask[:2]) if want]
    grads = {}
    if wanted:
        with torch.enable_grad():
            if transposed:
                out = getattr(F, f"conv_transpose{nd}d")(x, w, None, stride, padding, output_padding, groups, dilation)
            else:
                out = getattr(F, f"conv{nd}d")(x, w, None, stride, padding, dilation, groups)
            grads = dict(zip(map(id, wanted), torch.autograd.grad(out, wanted, grad_output)))
    grad_bias = grad_output.sum([0, *range(2, grad_output.ndim)]) if output_mask[2] else None
    return grads.get(id(x)), grads.get(id(w)), grad_bias


def _upsample_bilinear2d(input, output_size, align_corners: bool, *scales):
    """ATen's two overloads: `default(input, output_size, align_corners, scales_h=None, scales_w=None)` and
    `vec(input, output_size, align_corners, scale_factors)` (a list of scales, or None, with output_size None)."""
    from ember.core.dispatch import get_op

    if len(scales) == 1 and (scales[0] is None or isinstance(scales[0], (list, tuple))):
        factors = scales[0]
        if output_size is None:
            output_size = [int(n * f) for n, f in zip(input.shape[2:], factors)]
        scales = tuple(factors) if factors is not None else (None, None)
    scales = tuple(scales) + (None,) * (2 - len(scales))
    return get_op("upsample")(input, tuple(int(n) for n in output_size), "bilinear", bool(align_corners), scales)


# ATen operators that code calls directly, by ATen's name and signature, where ember's function differs
_CALLABLE = {"grid_sampler_2d": _grid_sampler, "grid_sampler_3d": _grid_sampler,
             "grid_sampler_2d_backward": _grid_sampler_backward, "grid_sampler_3d_backward": _grid_sampler_backward,
             "convolution_backward": _convolution_backward, "upsample_bilinear2d": _upsample_bilinear2d}


class OpOverload:
    """`torch.ops.aten.<name>.<overload>`: prints, names and compares as PyTorch's OpOverload (one object per
    overload)."""

    def __init__(self, packet: OpOverloadPacket, overload: str) -> None:
        self.overloadpacket = packet
        self._overloadname = overload
        self.__name__ = f"{packet.__name__}.{overload}"

    def name(self) -> str:
        base = f"aten::{self.overloadpacket.__name__}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        return self.overloadpacket(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self.overloadpacket.__name__}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"aten.{self.__name__}"


class OpOverloadPacket:
    """`torch.ops.aten.<name>`: its overloads as attributes; a call runs ember's function of that name."""

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self._overloads: dict[str, OpOverload] = {}

    def overloads(self) -> list[str]:
        return list(self._overloads)

    def __getattr__(self, name: str) -> OpOverload:
        if name.startswith("__") or name not in self.__dict__.get("_overloads", {}):
            raise AttributeError(f"The underlying op of 'aten.{self.__name__}' has no overload name '{name}'")
        return self._overloads[name]

    def __call__(self, *args, **kwargs):
        import ember.torch as torch

        if self.__name__ in _CALLABLE:
            return _CALLABLE[self.__name__](*args, **kwargs)
        fn = getattr(torch, self.__name__, None) if not self.__name__.startswith("_") else None
        if fn is None:
            raise NotImplementedError(f"torch.ops.aten.{self.__name__}: ember has no callable ATen operator of "
                                      "this name (use the torch function)")
        return fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"

    def __str__(self) -> str:
        return f"aten.{self.__name__}"


class _AtenNamespace:
    """`torch.ops.aten`: the packets of the ATen operators ember knows by name."""

    name = "aten"

    def __getattr__(self, op: str) -> OpOverloadPacket:
        from ember.core.dispatch import registered_ops

        if not op.startswith("__") and (op in registered_ops() or op in _CALLABLE):  # ember's op, by its name
            _overload(f"{op}.default")
            return self.__dict__[op]
        raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op}'")

    def __repr__(self) -> str:
        return "<module 'torch.ops.aten' from 'torch.ops'>"


aten = _AtenNamespace()


def _overload(qualified: str) -> OpOverload:
    name, overload = qualified.split(".")
    packet = aten.__dict__.get(name)
    if packet is None:
        packet = aten.__dict__[name] = OpOverloadPacket(name)
    found = packet._overloads.get(overload)
    if found is None:
        found = packet._overloads[overload] = OpOverload(packet, overload)
    return found


def _dims_given(args: tuple, kwargs: dict) -> bool:
    """Whether a reduction names its dims: ember's ops get every dim for a whole reduction (`x.sum()`), so a
    reduction over all dims without keepdim counts as PyTorch's overload without dims."""
    dims = args[1] if len(args) > 1 else kwargs.get("dims", kwargs.get("dim"))
    if dims is None or dims == ():
        return False
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    ndim = getattr(args[0], "ndim", None) if args else None
    return bool(keepdim) or not isinstance(dims, (tuple, list)) or len(dims) != ndim


def overload_of(op, args: tuple, kwargs: dict) -> OpOverload:
    """The ATen overload PyTorch's dispatcher sees for a call of ember's op `op` (`aten.<name>.default` for an
    op without a known ATen spelling)."""
    from ember.core.tensor import Tensor

    name = op.name
    if name in _TENSOR_OR_SCALAR:
        other = args[1] if len(args) > 1 else kwargs.get("other")
        wrapped = name in ("add", "sub", "mul", "div")  # ATen wraps their Python number: the Tensor overload
        return _overload(f"{name}.{'Tensor' if wrapped or isinstance(other, Tensor) else 'Scalar'}")
    if name in _BY_DIMS:
        return _overload(_BY_DIMS[name][_dims_given(args, kwargs)])
    if name == "pow":
        exponent = args[1] if len(args) > 1 else kwargs.get("exponent")
        return _overload("pow.Tensor_Tensor" if isinstance(exponent, Tensor) else "pow.Tensor_Scalar")
    if name == "squeeze":
        return _overload("squeeze.dim" if _dims_given(args, kwargs) else "squeeze.default")
    return _overload(_RENAMED.get(name) or f"{name}.default")


for _q in (*_RENAMED.values(), *_MORE, *(f"{n}.{o}" for n in _TENSOR_OR_SCALAR for o in ("Tensor", "Scalar")),
           *(q for pair in _BY_DIMS.values() for q in pair)):
    _overload(_q)

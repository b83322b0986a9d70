"""`torch.nn._reduction`: PyTorch's reduction enums and the legacy `size_average`/`reduce` translation, which
losses written as PyTorch's own (`from torch.nn import _reduction as _Reduction`) call."""

import warnings

__all__ = ["get_enum", "legacy_get_enum", "legacy_get_string"]


def get_enum(reduction: str) -> int:
    """ATen's reduction enum: 0 'none', 1 'mean' (and the deprecated 'elementwise_mean'), 2 'sum'."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.", stacklevel=2)
        return 1
    enums = {"none": 0, "mean": 1, "sum": 2}
    if reduction not in enums:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return enums[reduction]


def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The reduction the deprecated arguments ask for (None counts as True), with PyTorch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=2)
    return ret


def legacy_get_enum(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))

"""`repr` of tensors in PyTorch's format: `tensor([[1., 2.]], dtype=ember.float64, requires_grad=True)`."""

from __future__ import annotations

import numpy as np

from ember.core import dtypes

__all__ = ["set_printoptions", "tensor_repr"]

_options = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision: int | None = None, threshold: int | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """PyTorch's print options: digits after the point, summarisation threshold, line width."""
    if profile == "full":
        _options.update(precision=4, threshold=np.inf, edgeitems=3, linewidth=80)
    elif profile == "short":
        _options.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "default":
        _options.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    for key, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                       ("linewidth", linewidth)):
        if value is not None:
            _options[key] = value
    _options["sci_mode"] = sci_mode


def _sized(a: np.ndarray, e8m0: bool) -> np.ndarray:
    """The values that choose the format and width, PyTorch's `isfinite(t) & t.ne(0)` in the tensor's dtype: for
    float8_e8m0fnu, whose isfinite is always true and whose 0 is 2**-127, nan counts and 2**-127 does not."""
    if e8m0:
        return a[a != 2.0**-127]
    return a[np.isfinite(a) & (a != 0)]


def _float_formatter(a: np.ndarray, e8m0: bool = False):
    """PyTorch's choice among integer (`1.`), fixed (`1.5000`) and scientific (`1.5000e+00`) formats,
    made from the nonzero finite values shown."""
    p = _options["precision"]
    nz = np.abs(_sized(a, e8m0))
    ints = bool(np.all(nz == np.ceil(nz)))
    if not nz.size:  # nothing but zeros, nan and inf: PyTorch's integer format whatever sci_mode says
        return lambda v: _special(v) or f"{v:.0f}."
    sci = _options["sci_mode"]
    if sci is None:
        with np.errstate(over="ignore", invalid="ignore"):  # 1 / 5e-324 is inf, silently: past 1000 as PyTorch's
            sci = bool(nz.max() / nz.min() > 1000 or nz.max() > 1e8 or nz.min() < 1e-4)  # (a nan: all false)
    if sci:
        return lambda v: _special(v) or f"{v:.{p}e}"
    if ints:
        return lambda v: _special(v) or f"{v:.0f}."
    return lambda v: _special(v) or f"{v:.{p}f}"


def _special(v) -> str | None:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _shown(a: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (the `edgeitems` at both ends of each long dim)."""
    k = _options["edgeitems"]
    if a.size <= _options["threshold"]:
        return a
    for ax in range(a.ndim):
        if a.shape[ax] > 2 * k:
            a = np.concatenate([a.take(range(k), ax), a.take(range(-k, 0), ax)], ax)
    return a


def _element_formatter(shown: np.ndarray, e8m0: bool = False):
    """`fmt(v)`: one element as PyTorch prints it, right-aligned to the width of the widest shown one."""
    if shown.dtype.kind == "c":
        return _complex_formatter(shown)
    if shown.dtype.kind == "f":
        with np.errstate(invalid="ignore"):  # a signalling NaN's bits (0x7f800001) widen to nan silently
            wide = shown.astype(np.float64)
        fmt = _float_formatter(wide, e8m0)
        sized = _sized(shown, e8m0)  # like PyTorch: zeros, nan and inf do not set the width
    elif shown.dtype.kind == "b":
        fmt, sized = (lambda v: "True" if v else "False"), shown
    else:
        fmt, sized = (lambda v: str(int(v))), shown
    width = max((len(fmt(v)) for v in sized.flat), default=1)
    return lambda v: fmt(v).rjust(width), width


def _complex_formatter(shown: np.ndarray):
    """PyTorch's complex elements: the real parts aligned by their own formatter, then the imaginary
    part with its sign and `j`, unpadded; a line holds as many as the widths of both parts allow."""
    real_fmt, real_width = _element_formatter(shown.real)
    imag_fmt, imag_width = _element_formatter(shown.imag)

    def fmt(v):
        im = (imag_fmt(v.imag) + "j").lstrip()
        return real_fmt(v.real) + (im if im[0] in "+-" else "+" + im)
    return fmt, real_width + imag_width + 1


def _tensor_str(a: np.ndarray, indent: int, summarize: bool, fmt, width: int) -> str:
    """PyTorch's layout: rows of as many elements as fit the line width, summarised dims elided by "..."."""
    k = _options["edgeitems"]
    if a.ndim == 0:
        return fmt(a.item())
    elide = summarize and a.shape[0] > 2 * k
    if a.ndim == 1:
        per_line = max(1, (_options["linewidth"] - indent) // (width + 2))
        if summarize and not k:  # edgeitems=0: nothing shown but the ellipsis
            items = ["..."]
        elif elide:
            items = [fmt(v) for v in a[:k]] + [" ..."] + [fmt(v) for v in a[-k:]]
        else:
            items = [fmt(v) for v in a]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [_tensor_str(a[i], indent + 1, summarize, fmt, width) for i in range(a.shape[0])] if not elide else (
        [_tensor_str(a[i], indent + 1, summarize, fmt, width) for i in range(k)] + ["..."]
        + [_tensor_str(a[i], indent + 1, summarize, fmt, width) for i in range(a.shape[0] - k, a.shape[0])])
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int, force_newline: bool = False) -> str:
    """Append `, dtype=...` and friends, starting a new line where the current one would pass the width (and
    for the first suffix with `force_newline`, as PyTorch's COO reprs put `size=` on a line of its own)."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last + len(suffix) + 2 > _options["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(t, prefix: str = "tensor") -> str:
    if t._storage.device.type == "meta":
        return _meta_repr(t, prefix)
    if t._dtype._category == dtypes._SHELL:  # float4_e2m1fn_x2 prints each byte as a number (PyTorch)
        if (t.numel() and t._dtype is not dtypes.float4_e2m1fn_x2) or t._dtype.kind == "quant":
            from ember.core.ops.shell_dtypes import refuse_values

            refuse_values(t, "print")
        a = t._host_array().astype(np.float32)
    else:
        a = t._values()
    if t._dtype is dtypes.bfloat16 or t._dtype in dtypes.FLOAT8:
        a = a.astype(np.float32)  # exact; numpy's formatting needs a native float kind
    suffix = []
    if t.numel() == 0:
        body = "[]"
        if t.ndim != 1:
            suffix.append(f"size={tuple(t._shape)}")
    else:
        if not _options["edgeitems"]:  # PyTorch names the shape that no element shows
            suffix.append(f"size={tuple(t._shape)}")
        summarize = a.size > _options["threshold"]
        fmt, width = _element_formatter(_shown(a), t._dtype.name == "float8_e8m0fnu")
        body = _tensor_str(a, len(prefix) + 1, summarize, fmt, width)
    if t.device.type != "cpu":
        suffix.insert(0, f"device='{t.device}'")
    return _add_suffixes(f"{prefix}({body}", suffix + _dtype_grad_suffix(t), len(prefix) + 1)


def _meta_repr(t, prefix: str) -> str:
    """PyTorch's `tensor(..., device='meta', size=(3, 4))`: a meta tensor has no values to show, and names
    every dtype but the default one."""
    suffix = ["device='meta'", f"size={tuple(t._shape)}"]
    if t._dtype is not dtypes.get_default_dtype():
        suffix.append(f"dtype={t._dtype!r}")
    return _add_suffixes(f"{prefix}(...", suffix + _grad_suffix(t), len(prefix) + 1)


def _dtype_grad_suffix(t) -> list:
    """The `dtype=` (unless a default one) and `grad_fn=`/`requires_grad=` parts of a tensor's repr."""
    suffix = []
    default_complex = dtypes.complex128 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.complex64
    if t._dtype not in (dtypes.get_default_dtype(), default_complex, dtypes.int64, dtypes.bool) or (
            t.numel() == 0 and t._dtype is not dtypes.get_default_dtype()):  # no values show an empty's dtype
        suffix.append(f"dtype={t._dtype!r}")
    return suffix + _grad_suffix(t)


def _grad_suffix(t) -> list:
    """`grad_fn=<...>` or `requires_grad=True` for a repr, if either applies."""
    suffix = []
    gf = t._grad_fn
    if gf is not None:
        # the node's class name, as PyTorch prints it: CopySlices, whose name() is torch::autograd::CopySlices
        name = (gf.name() if hasattr(gf, "name") else type(gf).__name__).rsplit("::", 1)[-1]
        suffix.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    return suffix

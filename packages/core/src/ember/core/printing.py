"""`repr` of tensors in PyTorch's format: `tensor([[1., 2.]], dtype=ember.float64, requires_grad=True)`."""

from __future__ import annotations

import numpy as np

from ember.core import dtypes

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


def _float_formatter(a: np.ndarray):
    """PyTorch's choice among integer (`1.`), fixed (`1.5000`) and scientific (`1.5000e+00`) formats,
    made from the nonzero finite values shown."""
    p = _options["precision"]
    nz = np.abs(a[np.isfinite(a) & (a != 0)])
    ints = bool(np.all(nz == np.ceil(nz)))
    sci = _options["sci_mode"]
    if sci is None:
        sci = bool(nz.size) and bool(nz.max() / nz.min() > 1000 or nz.max() > 1e8 or nz.min() < 1e-4)
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


def _body(a: np.ndarray) -> str:
    """The bracketed elements, each right-aligned to the widest shown one, as PyTorch prints them."""
    if a.dtype.kind == "f":
        fmt = _float_formatter(_shown(a).astype(np.float64))
        key = "float_kind"
    elif a.dtype.kind == "b":
        fmt, key = (lambda v: "True" if v else "False"), "bool"
    else:
        fmt, key = (lambda v: str(int(v))), "int_kind"
    shown = _shown(a)
    if a.dtype.kind == "f":  # like PyTorch, nan and inf do not widen the columns
        shown = shown[np.isfinite(shown)]
    width = max((len(fmt(v)) for v in shown.flat), default=0)
    text = np.array2string(a, separator=", ", prefix="tensor(", formatter={key: lambda v: fmt(v).rjust(width)},
                           threshold=_options["threshold"], edgeitems=_options["edgeitems"],
                           max_line_width=_options["linewidth"])
    return text.replace(", ..., ", ",  ..., ")  # PyTorch's elided elements print as " ..."


def tensor_repr(t, prefix: str = "tensor") -> str:
    a = t._host_array()
    suffix = []
    if t.numel() == 0:
        body = "[]"
        if t.ndim != 1:
            suffix.append(f"size={tuple(t._shape)}")
    else:
        body = _body(a)
    if t.device.type != "cpu":
        suffix.insert(0, f"device='{t.device}'")
    if t._dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool) or (
            t._dtype is dtypes.int64 and t.numel() == 0):
        suffix.append(f"dtype={t._dtype!r}")
    gf = t._grad_fn
    if gf is not None:
        name = gf.name() if hasattr(gf, "name") else type(gf).__name__
        suffix.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    inner = body + "".join(", " + s for s in suffix)
    return f"{prefix}({inner})"

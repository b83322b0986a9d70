"""PyTorch's float32 precision switches (`torch.backends.fp32_precision`, `backends.cuda.matmul.fp32_precision`,
`backends.cudnn.conv.fp32_precision`, `backends.mkldnn.*` ...) and their agreement with the legacy ones.

A table of (backend, op) -> "none" | "ieee" | "tf32" | "bf16", as PyTorch 2.13's `Context` keeps it: setting an
op's entry sets it alone, a backend's "all" sets each of its ops, "generic" sets every backend (to "none" where the
backend lacks the precision). The legacy API (`set_float32_matmul_precision`, `allow_tf32`) writes the table too,
and reading a legacy switch after the two APIs were mixed into disagreement raises PyTorch's RuntimeError. ember's
kernels compute float32 in full float32 whatever is set: the switches are recorded and reported back.
"""

from __future__ import annotations

__all__ = ["get_precision", "set_precision", "effective", "check_matmul_precision", "matmul_precision_set",
           "cublas_allow_tf32", "set_cublas_allow_tf32", "cudnn_allow_tf32", "set_cudnn_allow_tf32", "snapshot",
           "restore"]

_SUPPORTED = {"generic": ("none", "ieee", "tf32", "bf16"), "cuda": ("none", "ieee", "tf32"),
              "mkldnn": ("none", "ieee", "tf32", "bf16")}
_OPS = ("all", "conv", "matmul", "rnn")
_table = {(b, op): "none" for b in _SUPPORTED for op in _OPS}
_table[("cuda", "conv")] = _table[("cuda", "rnn")] = "tf32"  # PyTorch's defaults
_cudnn_legacy = [True]  # `torch.backends.cudnn.allow_tf32` as last set through the legacy API

_SEE = "See also: https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices"


def get_precision(backend: str, op: str) -> str:
    """The precision stored for (backend, op), as PyTorch's getter reports it (no fallback)."""
    return _table[(backend, op)]


def set_precision(backend: str, op: str, precision: str) -> None:
    """Store `precision` for (backend, op): a backend's "all" for each of its ops, "generic" for every backend.
    A precision that is no str gets PyTorch's binding TypeError."""
    if not isinstance(precision, str):
        raise TypeError("_set_fp32_precision_setter(): incompatible function arguments. The following argument types "
                        "are supported:\n    1. (arg0: str, arg1: str, arg2: str) -> str\n\nInvoked with: "
                        f"{backend!r}, {op!r}, {precision!r}")
    if precision not in _SUPPORTED["generic"]:
        raise RuntimeError(f"Unknown precision: {precision}")
    if backend == "generic":
        for b, supported in _SUPPORTED.items():
            for o in _OPS:
                _table[(b, o)] = precision if precision in supported else "none"
        return
    if precision not in _SUPPORTED[backend]:
        raise RuntimeError(f"backend '{backend}' does not support precision '{precision}'")
    for o in _OPS if op == "all" else (op,):
        _table[(backend, o)] = precision


def effective(backend: str, op: str) -> str:
    """The precision in force for (backend, op): its own, else its backend's "all", else the generic one."""
    for key in ((backend, op), (backend, "all"), ("generic", "all")):
        if _table[key] != "none":
            return _table[key]
    return "none"


def check_matmul_precision(legacy: str) -> str:
    """`legacy` ("highest", "high", "medium"), after PyTorch's check that the new API's matmul entries agree."""
    mkldnn = effective("mkldnn", "matmul")
    if (effective("cuda", "matmul") == "tf32" and legacy == "highest" or mkldnn == "bf16" and legacy != "medium"
            or mkldnn == "tf32" and legacy != "high"):
        raise RuntimeError("PyTorch is checking the matmul precision without a specific backend name,Current status "
                           "indicate that you have used mix of the legacy and new APIs to set the matmul precision. "
                           f"We suggest only using the new API for matmul precision. {_SEE}")
    return legacy


def matmul_precision_set(legacy: str) -> None:
    """What `set_float32_matmul_precision(legacy)` writes into the table."""
    set_precision("cuda", "matmul", "ieee" if legacy == "highest" else "tf32")
    set_precision("mkldnn", "matmul", {"highest": "ieee", "high": "tf32", "medium": "bf16"}[legacy])


def cublas_allow_tf32(legacy: str) -> bool:
    """`torch.backends.cuda.matmul.allow_tf32`: the new API's answer, checked against the legacy precision."""
    new = effective("cuda", "matmul") == "tf32"
    if new != (legacy != "highest"):
        raise RuntimeError("PyTorch is checking whether allow_tf32_new is enabled for cuBlas matmul,Current status "
                           "indicate that you have used mix of the legacy and new APIs to set the TF32 status for "
                           f"cublas matmul. We suggest only using the new API to set the TF32 flag. {_SEE}")
    return new


def set_cublas_allow_tf32(flag: bool) -> None:
    set_precision("cuda", "matmul", "tf32" if flag else "ieee")


def cudnn_allow_tf32() -> bool:
    """`torch.backends.cudnn.allow_tf32`: conv and rnn both TF32, checked against the legacy flag."""
    new = effective("cuda", "conv") == "tf32" and effective("cuda", "rnn") == "tf32"
    if new != _cudnn_legacy[0]:
        raise RuntimeError("PyTorch is checking whether allow_tf32 is enabled for cuDNN without a specific operator "
                           "name,but the current flag(s) indicate that cuDNN conv and cuDNN RNN have different TF32 "
                           "flags.This combination indicates that you have used a mix of the legacy and new APIs to "
                           f"set the TF32 flags. We suggest only using the new API to set the TF32 flag(s). {_SEE}")
    return new


def set_cudnn_allow_tf32(flag: bool) -> None:
    for op in ("conv", "rnn"):
        set_precision("cuda", op, "tf32" if flag else "none")
    _cudnn_legacy[0] = bool(flag)


def snapshot() -> tuple:
    """The whole state (table and legacy cuDNN flag), for a context manager to put back as it was."""
    return dict(_table), _cudnn_legacy[0]


def restore(state: tuple) -> None:
    """Put back a `snapshot()`."""
    _table.update(state[0])
    _cudnn_legacy[0] = state[1]

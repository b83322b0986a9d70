"""`torch.__version__`: a string that compares as a version, as PyTorch's `TorchVersion` does, so that
version gates (`torch.__version__ >= "2.0"`, `>= (2, 0)`, `packaging.version.parse(...)`) take the branch
for the PyTorch API ember follows."""

from __future__ import annotations

import re

__all__ = ["TorchVersion", "__version__"]


def _release(v) -> tuple[int, ...]:
    if isinstance(v, tuple | list):
        return tuple(int(x) for x in v)
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(v))
    if m is None:
        raise ValueError(f"invalid version: {v!r}")
    return tuple(int(x) for x in m.group(1).split("."))


def _padded(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


class TorchVersion(str):
    """A version string whose comparisons use the release numbers ("2.13.0+ember" > "2.9")."""

    def _cmp(self, other, op) -> bool:
        try:
            a, b = _padded(_release(self), _release(other))
        except (ValueError, TypeError):
            return NotImplemented
        return op(a, b)

    def __lt__(self, other) -> bool:
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other) -> bool:
        return self._cmp(other, tuple.__le__)

    def __gt__(self, other) -> bool:
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other) -> bool:
        return self._cmp(other, tuple.__ge__)

    def __eq__(self, other) -> bool:
        if isinstance(other, str) and "+" in other:
            return str.__eq__(self, other)
        result = self._cmp(other, tuple.__eq__)
        return str.__eq__(self, other) if result is NotImplemented else result

    __hash__ = str.__hash__


# the PyTorch release whose API ember follows; "+ember" is the local-version tag, as "+cpu" in PyTorch's wheels
__version__ = TorchVersion("2.13.0+ember")

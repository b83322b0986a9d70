"""`torch.types`: the type aliases PyTorch's signatures use, over ember's classes."""

from __future__ import annotations

import os
from typing import IO, TypeAlias

from ember.autograd import Size, Tensor, device
from ember.core.storage import Storage

__all__ = ["Number", "Device", "FileLike", "IntLikeType", "FloatLikeType", "BoolLikeType", "Storage", "Tensor",
           "Size", "SymInt", "SymFloat", "SymBool", "py_sym_types"]

# ember has no symbolic shapes: its "symbolic" scalars are the plain ones
SymInt, SymFloat, SymBool = int, float, bool
py_sym_types = (SymInt, SymFloat, SymBool)
IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
Number: TypeAlias = int | float | bool
Device: TypeAlias = str | device | int | None
FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]

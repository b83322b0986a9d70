"""`copy.deepcopy` of tensors: new memory, the same views, class, attributes and `requires_grad`.

Storages go through the deepcopy memo too, so views of one storage copied together (a module's
tied weights, `[t, t[0]]`) stay views of one new storage, as in PyTorch. The copy is never in
shared memory, whatever the original's storage was.
"""

from __future__ import annotations

import copy

from ember.core.ops import shape as _shape_ops
from ember.core.sharing import restore_requires_grad
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["deepcopy_tensor"]


def _copy_storage(st: Storage, memo: dict) -> Storage:
    new = memo.get(id(st))
    if new is None:
        new = Storage.cpu(st.nbytes)
        new.data[:] = st.data[: st.nbytes]
        memo[id(st)] = new
    return new


def deepcopy_tensor(t: Tensor, memo: dict) -> Tensor:
    """The deep copy of `t` for `Tensor.__deepcopy__` (autograd history is not copied: a leaf results)."""
    if t._storage.device.type == "cpu":
        new = Tensor._make(_copy_storage(t._storage, memo), t._offset, t._shape, t._strides, t._dtype, type(t))
    else:
        # Below the dispatch hooks: a copy has no autograd history.
        new = _shape_ops.clone.redispatch((t,), {})
        if type(t) is not Tensor:
            new = new._as_subclass(type(t))
    if t._requires_grad:
        restore_requires_grad(new)
    if t._grad is not None:
        new._grad = copy.deepcopy(t._grad, memo)
    if t.__dict__:
        attrs = copy.deepcopy(t.__dict__, memo)
        attrs.pop("_is_inference", None)  # autograd's mark of a tensor made in inference mode: the copy is made now
        new.__dict__.update(attrs)
    return new

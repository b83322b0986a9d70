"""`torch.utils.swap_tensors`: two tensor objects exchange what they are, in place."""

import copyreg
import weakref

from ember.core.tensor import Tensor

_DATA_SLOTS = tuple(s for s in Tensor.__slots__ if s not in ("__dict__", "__weakref__"))


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Exchange the contents (storage view, dtype, autograd state), class and attributes of `t1` and `t2`, so every
    reference to `t1` now sees what `t2` was and the reverse (nn.Module conversion under the swap flag)."""
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    if set(copyreg._slotnames(type(t1))) != set(copyreg._slotnames(type(t2))):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    d1, d2 = t1.__dict__, t2.__dict__
    c1, c2 = type(t1), type(t2)
    t1.__class__, t2.__class__ = c2, c1
    t1.__dict__, t2.__dict__ = d2, d1
    missing = object()

    def read(slot, t):
        try:
            return slot.__get__(t)
        except AttributeError:
            return missing

    for name in _DATA_SLOTS:
        slot = Tensor.__dict__[name]
        v1, v2 = read(slot, t1), read(slot, t2)
        for t, v in ((t1, v2), (t2, v1)):
            if v is missing:
                slot.__delete__(t)
            else:
                slot.__set__(t, v)

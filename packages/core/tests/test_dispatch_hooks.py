"""The dispatch hook chain: order of hooks, and `innermost=True` beneath every other hook."""

from __future__ import annotations

import numpy as np

from ember.core import dispatch
from ember.core.tensor import Tensor


def test_innermost_hook_runs_below_every_other_and_sees_what_they_pass_down():
    seen = []

    def outer(op, args, kwargs, call_next):
        seen.append(("outer", op.name))
        return call_next(op, (args[0], args[0]) if op.name == "mul" else args, kwargs)

    def inner(op, args, kwargs, call_next):
        seen.append(("inner", op.name, args[1] is args[0]))
        return call_next(op, args, kwargs)

    dispatch.register_dispatch_hook(outer)
    dispatch.register_dispatch_hook(inner, innermost=True)
    try:
        x = Tensor._wrap(np.array([2.0, 3.0], np.float32))
        r = dispatch.get_op("mul")(x, 10.0)
    finally:
        dispatch.remove_dispatch_hook(inner)
        dispatch.remove_dispatch_hook(outer)
    assert r.tolist() == [4.0, 9.0]
    assert seen[:2] == [("outer", "mul"), ("inner", "mul", True)]

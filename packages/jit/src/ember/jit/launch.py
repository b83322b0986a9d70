"""The call of a fused kernel from a replay: one generated Python function per group.

NOTE [ A fused kernel's launch ]
A replay calls a fused group as `run(*inputs)`, which returns its results as a tuple of new
tensors. On a 10×10 chain the kernel's own work is about 1.5 µs, so the Python around it counts.
`launcher` writes `run` for the group's arity (no `*args`, list or zip per call): it allocates
each result in the group's shape, passes the kernel flat views (`ravel`, a view of a C-contiguous
array and a contiguous copy of anything else, so the kernel's 1-D C-layout loop is right
whatever the input's strides), and makes each result tensor directly, as `Tensor._wrap` makes one
of a fresh C-contiguous array (every slot of `Tensor` and `Storage`; a test holds the two equal).

After its first call `run` calls the kernel's compiled entry point for that call's signature
directly, skipping Numba's dispatcher (its typing of every argument, about 0.2 µs a call). The
signature is the one of the first call for as long as every input has the group's dtype and
shape (`run` tests both): results are allocated here, `ravel` always gives a 1-D C-contiguous
array, and a broadcast input has the group's dimensions. An input of another dtype is handed to
the dispatcher, which compiles or picks the matching signature; one of another shape raises
RuntimeError, where the kernel would read past its end. Neither happens in a replay whose checks
passed (the replay tests the geometry of each constant a fused kernel reads, NOTE [ Views at
replay ] in `ember.jit.graph`); `run.dispatched` counts the dispatcher's calls.
"""

from __future__ import annotations

import numpy as np

from ember.core.device import CPU
from ember.core.storage import Storage
from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["launcher"]


def launcher(kern, dtype, shape: tuple, broadcast: tuple, n_out: int, sv: np.ndarray, name: str):
    """`run(*inputs)` for a fused group: `kern(n, *outs, *flat inputs, sv)` on new results of `shape` and
    ember `dtype`; `broadcast[j]` marks an input passed as itself (one value broadcast, all strides 0)."""
    ins = [f"t{j}" for j in range(len(broadcast))]
    outs = [f"o{m}" for m in range(n_out)]
    args = ["_n"] + [f"{o}.ravel()" for o in outs] + [
        f"{t}._np()" if b else f"{t}._np().ravel()" for t, b in zip(ins, broadcast)] + ["_sv"]
    same = " and ".join(f"{t}._dtype is _dt and {t}._shape == _shape" for t in ins) or "True"
    lines = [f"def {name}({', '.join(ins)}):"]
    lines += [f"    {o} = _empty(_shape, _npdt)" for o in outs]
    call = ", ".join(args)
    lines += [f"    if {same}:", f"        _call({call})", "    else:",
              f"        _dispatch(({''.join(t + ', ' for t in ins)}), {call})"]
    for m, o in enumerate(outs):  # `Tensor._wrap(o)`, inlined (NOTE [ A fused kernel's launch ])
        lines += [f"    s{m} = _new(_Storage)", f"    s{m}._raw = {o}",
                  f"    s{m}._bytes = s{m}._block = s{m}._shared = None", f"    s{m}.nbytes = _nbytes",
                  f"    s{m}.device = _CPU", f"    s{m}.version = 0",
                  f"    r{m} = _new(_Tensor)", f"    r{m}._storage = s{m}", f"    r{m}._offset = 0",
                  f"    r{m}._shape = _shape", f"    r{m}._strides = _strides", f"    r{m}._dtype = _dt",
                  f"    r{m}._npc = ({o}, {o})", f"    r{m}._requires_grad = False",
                  f"    r{m}._grad = r{m}._grad_fn = r{m}._ag = None"]
    lines.append(f"    return ({''.join(f'r{m}, ' for m in range(n_out))})")
    npdt = np.dtype(dtype.np)
    shape = tuple(shape)

    def first(*a):
        """The first call, through the dispatcher: it picks the signature whose entry point later calls take
        (the dispatcher itself where Numba shows none)."""
        run.dispatched += 1
        kern(*a)
        entry = _entry_point(kern, a)
        g["_call"] = kern if entry is None else entry
        run.direct = entry

    def dispatch(ts: tuple, *a):
        for t in ts:  # the kernel reads `n` values of each input: never past the end of a smaller one
            if t._shape != shape:
                raise RuntimeError(f"ember.jit: {name} was planned for inputs of shape {shape}, got one of shape "
                                   f"{t._shape} (a tensor the plan reads was re-pointed during the replay)")
        run.dispatched += 1
        kern(*a)

    g = {"_empty": np.empty, "_shape": shape, "_npdt": npdt, "_dt": dtype, "_n": int(np.prod(shape)),
         "_sv": sv, "_call": first, "_dispatch": dispatch, "_new": object.__new__, "_Storage": Storage,
         "_Tensor": Tensor, "_CPU": CPU, "_nbytes": int(np.prod(shape)) * npdt.itemsize,
         "_strides": contiguous_strides(tuple(shape))}
    exec(compile("\n".join(lines) + "\n", f"<ember.jit {name}>", "exec"), g)
    run = g[name]
    run.dispatched = 0  # calls through Numba's dispatcher (the first, and any with another input dtype)
    run.direct = None  # the entry point called directly
    run.kernel = kern
    return run


def _entry_point(kern, args: tuple):
    """The compiled entry point of Numba dispatcher `kern` for the types of `args` (None where there is none)."""
    try:
        sig = tuple(kern.typeof_pyval(a) for a in args)
        return kern.overloads[sig].entry_point
    except (AttributeError, KeyError, TypeError):
        return None

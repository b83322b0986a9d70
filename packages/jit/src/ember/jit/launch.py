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
signature is the one of the first call for as long as every input has the group's dtype and the
shape it had at capture (`run` tests both): results are allocated here, `ravel` always gives a
1-D C-contiguous array, and a broadcast input (one value, read as the first element of whatever
array it is) keeps its dimensions. An input of another dtype or shape is handed to the dispatcher,
which compiles or picks the matching signature; a whole input of another shape raises
RuntimeError there, where the kernel would read past its end. Neither happens in a replay whose checks
passed (the replay tests the geometry of each constant a fused kernel reads, NOTE [ Views at
replay ] in `ember.jit.graph`); `run.dispatched` counts the dispatcher's calls.

In a replay whose arena holds a result (NOTE [ The replay's arena ] in `ember.jit.arena`), `emit`
takes that result's slot, its shaped and its flat view, in place of the `np.empty` and the `ravel`;
the result tensor is made over the slot the same way.
"""

from __future__ import annotations

import numpy as np

from ember.core.device import CPU
from ember.core.storage import Storage
from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["launcher"]


def launcher(kern, dtype, shape: tuple, broadcast: tuple, in_shapes: tuple, n_out: int, sv: np.ndarray, name: str):
    """`run(*inputs)` for a fused group: `kern(n, *outs, *flat inputs, sv)` on new results of `shape` and
    ember `dtype`; `broadcast[j]` marks an input passed as itself (one value, of shape `in_shapes[j]`: the
    kernel reads its first element), the others have the group's shape.
    `run.emit(prefix, inputs, results, g)` writes the same lines into a replay's own function instead."""
    npdt = np.dtype(dtype.np)
    shape = tuple(shape)
    consts = {"_empty": np.empty, "_shape": shape, "_npdt": npdt, "_dt": dtype, "_n": int(np.prod(shape)),
              "_sv": sv, "_new": object.__new__, "_Storage": Storage, "_Tensor": Tensor, "_CPU": CPU,
              "_nbytes": int(np.prod(shape)) * npdt.itemsize, "_strides": contiguous_strides(shape)}
    homes: list[tuple[dict, str]] = []  # (globals, prefix) of each function that calls `_call`

    def body(pre: str, ins: list, res: list, slots: list | None = None) -> list:
        """The launch's lines over input names `ins`, binding results `res`; every global and temporary is
        prefixed with `pre` (NOTE [ A fused kernel's launch ]). `slots[m]`: None, or the expressions of the
        shaped and the flat array result `m` is written into (an arena's slot) instead of a new one."""
        k = {c: pre + c for c in consts}
        outs = [f"{pre}o{m}" for m in range(n_out)]
        slots = slots or [None] * n_out
        args = [k["_n"]] + [f"{o}.ravel()" if s is None else s[1] for o, s in zip(outs, slots)] + [
            f"{t}._np()" if b else f"{t}._np().ravel()" for t, b in zip(ins, broadcast)] + [k["_sv"]]
        same = " and ".join(f"{t}._dtype is {k['_dt']} and {t}._shape == {s!r}"
                            for t, s in zip(ins, in_shapes)) or "True"
        call = ", ".join(args)
        lines = [f"{o} = {k['_empty']}({k['_shape']}, {k['_npdt']})" if s is None else f"{o} = {s[0]}"
                 for o, s in zip(outs, slots)]
        lines += [f"if {same}:", f"    {pre}_call({call})", "else:",
                  f"    {pre}_dispatch(({''.join(t + ', ' for t in ins)}), {call})"]
        for m, (o, r) in enumerate(zip(outs, res)):  # `Tensor._wrap(o)`, inlined
            st = f"{pre}s{m}"
            lines += [f"{st} = {k['_new']}({k['_Storage']})", f"{st}._raw = {o}",
                      f"{st}._bytes = {st}._block = {st}._shared = None", f"{st}.nbytes = {k['_nbytes']}",
                      f"{st}.device = {k['_CPU']}", f"{st}.version = 0",
                      f"{r} = {k['_new']}({k['_Tensor']})", f"{r}._storage = {st}", f"{r}._offset = 0",
                      f"{r}._shape = {k['_shape']}", f"{r}._strides = {k['_strides']}", f"{r}._dtype = {k['_dt']}",
                      f"{r}._npc = ({o}, {o})", f"{r}._requires_grad = False",
                      f"{r}._grad = {r}._grad_fn = {r}._ag = None"]
        return lines

    def emit(pre: str, ins: list, res: list, g: dict, slots: list | None = None) -> list:
        """The launch as lines of a replay (indented by four) whose globals are `g`: the names it needs go into
        `g`, and `g` gets the entry point after the first call as `run`'s own globals do. Its temporaries are
        deleted at the end, so a result's memory goes when the replay drops the result. `slots` as `body`'s:
        the arena slots the results go into (NOTE [ The replay's arena ] in `ember.jit.arena`)."""
        g.update({pre + c: v for c, v in consts.items()})
        g[pre + "_call"] = _call[0]
        g[pre + "_dispatch"] = dispatch
        homes.append((g, pre))
        temps = [f"{pre}o{m}" for m in range(n_out)] + [f"{pre}s{m}" for m in range(n_out)]
        return [f"    {line}" for line in body(pre, ins, res, slots)] + [f"    del {', '.join(temps)}"]

    def first(*a):
        """The first call, through the dispatcher: it picks the signature whose entry point later calls take
        (the dispatcher itself where Numba shows none)."""
        run.dispatched += 1
        kern(*a)
        entry = _entry_point(kern, a)
        _call[0] = kern if entry is None else entry
        for home, pre in homes:
            home[pre + "_call"] = _call[0]
        run.direct = entry

    def dispatch(ts: tuple, *a):
        for t, b in zip(ts, broadcast):  # the kernel reads `n` values of each whole input, the first of the others
            if t._shape != shape and not (b and t.numel() > 0):
                raise RuntimeError(f"ember.jit: {name} was planned for inputs of shape {shape}, got one of shape "
                                   f"{t._shape} (a tensor the plan reads was re-pointed during the replay)")
        run.dispatched += 1
        kern(*a)

    _call = [first]
    ins = [f"t{j}" for j in range(len(broadcast))]
    res = [f"r{m}" for m in range(n_out)]
    src = f"def {name}({', '.join(ins)}):\n" + "".join(f"    {line}\n" for line in body("", ins, res)) + \
        f"    return ({''.join(r + ', ' for r in res)})\n"
    g = {**consts, "_call": first, "_dispatch": dispatch}
    homes.append((g, ""))
    exec(compile(src, f"<ember.jit {name}>", "exec"), g)
    run = g[name]
    run.dispatched = 0  # calls through Numba's dispatcher (the first, and any with another input dtype)
    run.direct = None  # the entry point called directly
    run.kernel = kern
    run.whole = ("flat", kern, int(np.prod(shape)), npdt, shape, broadcast, sv)  # ember.jit.wholeplan's view
    run.emit = emit
    run.source = src
    return run


def _entry_point(kern, args: tuple):
    """The compiled entry point of Numba dispatcher `kern` for the types of `args` (None where there is none)."""
    try:
        sig = tuple(kern.typeof_pyval(a) for a in args)
        return kern.overloads[sig].entry_point
    except (AttributeError, KeyError, TypeError):
        return None

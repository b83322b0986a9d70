"""The backward engine: runs each node once, in dependency order, without recursion.

`backward` accumulates into leaves' `.grad`; `grad` returns the gradients w.r.t. given inputs
instead. Both walk the graph from the outputs once to count, for every reachable node, how many
edges lead into it; a node runs when all of them have delivered their gradients (summed in its
input buffer). Among ready nodes the most recently created runs first, like PyTorch's engine.
"""

from __future__ import annotations

import heapq
import itertools
import warnings
from collections.abc import Mapping

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import overrides as _overrides
from ember.core.creation import ones_like, zeros_like
from ember.core.ops.reduce import sum_untracked
from ember.core.sparse import SparseTensor
from ember.core.tensor import Size, Tensor, describe

from ember.autograd import anomaly
from ember.autograd.graph import (AccumulateGrad, GradientEdge, Node, _accumulate, _fresh, _leaf_hooks,
                                  accumulate_into, checked_hook_result, edge_of, row_major_copy)
from ember.autograd.grad_mode import _enabled, _state
from ember.autograd.untracked import plain

__all__ = ["backward", "grad", "reduce_grad", "accumulate_into"]


def _sum_to(g: Tensor, shape: tuple) -> Tensor | None:
    """`g` summed over the dims it was broadcast along to reach its shape from `shape`, or None."""
    lead = len(g._shape) - len(shape)
    if lead < 0:
        return None
    dims = list(range(lead))
    for i, n in enumerate(shape):
        gn = g._shape[lead + i]
        if n == gn:
            continue
        if n != 1:
            return None
        dims.append(lead + i)
    if dims:
        # a bias's batch: one sum, no view after; a recorded gradient (a double backward's) keeps PyTorch's
        # sum(keepdim=True) and view, whose nodes its graph shows
        if len(dims) == lead and not g.requires_grad:
            return sum_untracked(g, tuple(dims)) if plain(g) else g.sum(tuple(dims))
        g = g.sum(tuple(dims), keepdim=True)
    return g.view(shape) if g._shape != tuple(shape) else g


def reduce_grad(node: Node, i: int, g, in_meta: tuple) -> Tensor:
    """The gradient `g` for input `i` of `node`, summed to the input's shape, cast to its dtype and
    moved to its device (a CPU 0-dim input of a CUDA op gets a CPU gradient)."""
    shape, dtype, device = in_meta
    if not isinstance(g, Tensor):  # PyTorch's words for a backward that returns something else (a list, a number)
        from ember.core.ops._util import tp_name as _type_name

        raise RuntimeError(f"expected Variable or None (got {_type_name(g)})")
    if g._shape != shape:
        r = _sum_to(g, shape)
        if r is None:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{list(g._shape)} but expected shape compatible with {list(shape)}")
        g = r
    if g._dtype is not dtype and (dtype.is_floating_point or dtype.is_complex):
        if g._dtype.is_complex and not dtype.is_complex:
            g = g.real  # a real input of a complex op: PyTorch's gradient is the real part
        g = g.to(dtype)
    if g._storage.device is not device and g._storage.device != device:
        g = g.to(device)
    return g


def _run_tensor_hooks(node: Node, grads: list) -> None:
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            if grads[nr] is None:
                continue
            for h in tuple(hooks.values()):
                r = h(grads[nr])
                if r is not None:
                    grads[nr] = checked_hook_result(h, grads[nr], r)
    ret = node._retained
    if ret:
        for nr, ref in ret.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                _retain(t, grads[nr])


def _retain(t: Tensor, g: Tensor) -> None:
    """Add `g` into the `.grad` of non-leaf `t` (retain_grad, backward(inputs=...)): a row-major copy first; under
    create_graph it keeps its history (PyTorch's CloneBackward0 / AddBackward0), else it is detached."""
    if _enabled.get():
        t._grad = row_major_copy(g) if t._grad is None else t._grad + g
    else:
        t._grad = _fresh(g) if t._grad is None else t._grad + g.detach()


def _post_order(roots: list[Node]) -> list[Node]:
    """The nodes reachable from `roots`, every node after the nodes it leads to."""
    order: list[Node] = []
    seen = set()
    stack = []
    for r in roots:
        if r not in seen:
            seen.add(r)
            stack.append((r, iter(r.next_functions)))
    while stack:
        node, it = stack[-1]
        for child, _ in it:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append((child, iter(child.next_functions)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def execute(root_edges: list, root_grads: list, *, retain_graph: bool, create_graph: bool,
            capture: list | None = None, accumulate: bool = True) -> list:
    """Run backward from `root_edges`; return the gradients at the `capture` edges (or [])."""
    roots = [root_edges[0][0]] if len(root_edges) == 1 else [e[0] for e in root_edges]
    deps: dict[Node, int] = {}  # how many edges lead into each reachable node
    seen = set(roots)
    stack = list(seen)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                if child in seen:
                    deps[child] = deps.get(child, 0) + 1
                else:
                    deps[child] = 1
                    seen.add(child)
                    stack.append(child)
    cap: dict[Node, list[tuple[int, int]]] = {}
    needed = None
    if capture is not None:
        for k, (n, nr) in enumerate(capture):
            if n is not None:
                cap.setdefault(n, []).append((nr, k))
        needed = set()
        for n in _post_order(roots):
            if n in cap or any(c in needed for c, _ in n.next_functions if c is not None):
                needed.add(n)
    captured = [None] * (len(capture) if capture is not None else 0)

    buffers: dict[Node, list] = {}
    if len(root_edges) == 1 and root_edges[0][1] == 0 and roots[0]._n_out == 1:
        buffers[roots[0]] = [root_grads[0]]  # _deliver's answer for one root of one output
    else:
        for (n, nr), g in zip(root_edges, root_grads):
            _deliver(buffers, n, nr, g)
    # a heap of (-sequence number, arrival, node): the newest ready node runs first; leaves' sinks
    # share PyTorch's top sequence number and run first, in the order they became ready
    ready = []
    arrival = 0  # counted inline: no call per node
    for n in (roots if len(roots) == 1 else set(roots)):
        if n not in deps:
            arrival += 1
            ready.append((-n._seq, arrival, n))
    heapq.heapify(ready)
    heappush, heappop, heappushpop = heapq.heappush, heapq.heappop, heapq.heappushpop

    token = _enabled.set(create_graph)
    _tasks.append((next(_task_ids), seen, needed))
    try:
        node = heappop(ready)[2] if ready else None
        while node is not None:
            grads = buffers.pop(node, None) or [None] * (node._n_out or 1)
            if node._hooked or needed is not None or anomaly._enabled:
                # hooks, retained grads, an anomaly trace, or grad()/backward(inputs=...) capturing
                outs = _run_node(node, grads, cap, captured, needed, accumulate, retain_graph)
            elif grads[0] is not None or len(grads) > 1 and any(g is not None for g in grads):
                if _dispatch._protocol is None or node._user_code:
                    outs = node.apply(grads)
                else:  # _shielded_apply, inlined: no Python call per node
                    tls = _overrides._tls
                    tls.disabled += 1
                    try:
                        outs = node.apply(grads)
                    finally:
                        tls.disabled -= 1
                if not retain_graph:
                    node.release()
            else:
                outs = None
            nxt = None  # the first child that became ready: it runs next unless a newer node is ready
            nf = node.next_functions
            if outs is None:
                for child, _ in nf:
                    if child is not None:
                        d = deps[child]
                        if d == 1:
                            if nxt is None:
                                arrival += 1
                                nxt, nxt_at = child, arrival
                            else:
                                arrival += 1
                                heappush(ready, (-child._seq, arrival, child))
                        else:
                            deps[child] = d - 1
            else:
                if len(outs) < len(nf):
                    outs = [*outs, *[None] * (len(nf) - len(outs))]
                for (child, nr), g in zip(nf, outs):
                    if child is None:
                        continue
                    if g is not None:  # _deliver, inlined: this runs once per edge
                        buf = buffers.get(child)
                        if buf is None:
                            n_out = child._n_out
                            if nr == 0 and n_out == 1:
                                buffers[child] = [g]
                            else:
                                buf = buffers[child] = [None] * (n_out if nr < n_out else nr + 1)
                                buf[nr] = g
                        else:
                            if nr >= len(buf):
                                buf.extend([None] * (nr + 1 - len(buf)))
                            old = buf[nr]  # PyTorch's InputBuffer: a sparse sum is new + old (dense when either is)
                            buf[nr] = g if old is None else old + g if type(old) is not SparseTensor else g + old
                    d = deps[child]
                    if d == 1:
                        if nxt is None:
                            arrival += 1
                            nxt, nxt_at = child, arrival
                        else:
                            arrival += 1
                            heappush(ready, (-child._seq, arrival, child))
                    else:
                        deps[child] = d - 1
                # no reference to a gradient stays here while the next node runs (AccumulateGrad
                # steals a gradient nothing else holds)
                outs = g = None
            if nxt is not None:
                node = heappushpop(ready, (-nxt._seq, nxt_at, nxt))[2] if ready else nxt
            else:
                node = heappop(ready)[2] if ready else None
    finally:
        _tasks.pop()
        _enabled.reset(token)
    return captured


_tasks: list = []  # the backward runs in progress, innermost last: (id, nodes reached, nodes needed or None)
_task_ids = itertools.count()


def current_task_id() -> int:
    """PyTorch's `_current_graph_task_id()`: the running backward's id, -1 outside one."""
    return _tasks[-1][0] if _tasks else -1


def will_execute(node: Node) -> bool:
    """PyTorch's `_will_engine_execute_node`: whether the running backward reaches `node` and runs it."""
    if not _tasks:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    _, seen, needed = _tasks[-1]
    return node in seen and (needed is None or node in needed)


def _run_node(node: Node, grads: list, cap: dict, captured: list, needed: set | None, accumulate: bool,
              retain_graph: bool) -> list | None:
    """One node of `execute` on its general path: tensor hooks and retained grads, capturing for
    grad()/backward(inputs=...), node hooks and anomaly checks (`_apply`)."""
    if node._tensor_hooks or node._retained:
        _run_tensor_hooks(node, grads)
    if cap and node in cap:
        _capture(node, grads, cap[node], captured)
    if needed is not None and (node not in needed or (not accumulate and isinstance(node, AccumulateGrad))):
        return None
    if grads[0] is None and not (len(grads) > 1 and any(g is not None for g in grads)):
        return None
    outs = _apply(node, grads)
    if not retain_graph:
        node.release()
    return outs


def _capture(node: Node, grads: list, wanted: list, captured: list) -> None:
    """Keep the gradients flowing into `node` that `grad(...)`/`backward(inputs=...)` asked for."""
    for nr, k in wanted:
        g = grads[nr] if nr < len(grads) else None
        if isinstance(node, AccumulateGrad) and g is not None and node.variable is not None:
            g = _leaf_hooks(node.variable, g)
        captured[k] = g if captured[k] is None or g is None else captured[k] + g


def _deliver(buffers: dict, node: Node, nr: int, g) -> None:
    """Add gradient `g` for output `nr` of `node` into its input buffer."""
    buf = buffers.get(node)
    if buf is None:
        n_out = node._n_out  # builtins.max costs 0.3 us here
        buf = buffers[node] = [None] * (n_out if n_out > nr else nr + 1)
    elif nr >= len(buf):
        buf.extend([None] * (nr + 1 - len(buf)))
    if g is not None:
        old = buf[nr]
        buf[nr] = g if old is None else old + g if type(old) is not SparseTensor else g + old


def _shielded_apply(node: Node, grads: list) -> list:
    """`node.apply` with `__torch_function__` off for ember's own derivative formulas, as PyTorch's C++ engine
    runs them (a subclass's saved tensors give plain gradients, a mode sees none of them); a custom Function's
    backward and the leaf's hooks are the user's Python and keep the protocol."""
    if node._user_code:
        return node.apply(grads)
    _overrides._tls.disabled += 1
    try:
        return node.apply(grads)
    finally:
        _overrides._tls.disabled -= 1


def _apply(node: Node, grads: list) -> list:
    if node._pre_hooks:
        for h in tuple(node._pre_hooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    try:
        outs = node.apply(grads) if _dispatch._protocol is None else _shielded_apply(node, grads)
    except Exception as e:
        if node._trace is not None:
            anomaly.report(node, e)
        raise
    if node._post_hooks:
        for h in tuple(node._post_hooks.values()):
            r = h(tuple(outs), tuple(grads))
            if r is not None:
                outs = list(r)
    if anomaly._enabled and anomaly._check_nan:
        anomaly.check_nan(node, outs)
    return outs


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, Tensor | GradientEdge):
        return [x]
    return list(x)


def _root_grads(outputs: list[Tensor], grad_outputs: list, what: str) -> list:
    res = []
    # PyTorch pairs them with zip (extra gradients are ignored) and checks each pair before it counts them
    for i, t in enumerate(outputs[:len(grad_outputs)] if grad_outputs else outputs):
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if isinstance(t, Tensor) and not t.requires_grad:
                res.append(None)  # PyTorch makes no implicit grad here: _root_edges refuses the output first
                continue
            if t._shape and t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not t._dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {t._dtype!r}")
            if t._storage.device.type != "cpu":
                g = ones_like(t)
            else:
                g = Tensor._wrap(np.ones(t._shape, t._dtype.np) if t._shape else np.array(1, t._dtype.np))
        elif isinstance(g, Tensor):
            if g._shape != t._shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._shape)!r} and "
                                   f"output[{i}] has a shape of {Size(t._shape)!r}.")
            if g._dtype is not t._dtype:
                if g._dtype.is_complex or t._dtype.is_complex:
                    raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same "
                                       f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g._dtype!r} and "
                                       f"output[{i}] has a dtype of {t._dtype!r}.")
                g = g.to(t._dtype)  # PyTorch's engine casts a root's gradient to the root's dtype (validate_outputs)
        else:
            raise TypeError(f"{what}: grad_outputs[{i}] must be a Tensor or None; got {describe(g)}")
        res.append(g)
    if len(res) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    return res


def _root_edges(outputs: list[Tensor]) -> list:
    edges = []
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a Tensor as element {i} of outputs; got {type(t).__name__}")
        e = edge_of(t)
        if e[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(e)
    return edges


_cycle_warned = False


def _warn_reference_cycle() -> None:
    """PyTorch's engine warns once a process when backward() accumulates into `.grad` under create_graph."""
    global _cycle_warned
    if not _cycle_warned:
        _cycle_warned = True
        from ember.core.ops._util import internally

        warnings.warn(internally("Using backward() with create_graph=True will create a reference cycle between the "
                                 "parameter and its gradient which can cause a memory leak. We recommend using "
                                 "autograd.grad when creating the graph to avoid this. If you have to use this "
                                 "function, make sure to reset the .grad fields of your parameters to None after use "
                                 "to break the cycle and avoid the leak.", "torch/csrc/autograd/engine.cpp:1307"),
                      UserWarning, stacklevel=2)


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's `.grad` (or only into `inputs`' `.grad`).

    Args:
        tensors: outputs to differentiate (a tensor or a sequence of them).
        grad_tensors: the gradient w.r.t. each output (None: 1 for a one-element output).
        retain_graph: keep saved tensors for another backward (default: `create_graph`).
        create_graph: record the backward pass, for higher-order derivatives.
        inputs: accumulate only into these tensors' `.grad`.

    Raises:
        RuntimeError: an output does not require grad, or a non-scalar output has no gradient.
    """
    if retain_graph is None:
        retain_graph = create_graph
    if (inputs is None and grad_tensors is None and grad_variables is None and isinstance(tensors, Tensor)
            and not tensors._shape and tensors._ag is None and tensors._grad_fn is not None
            and tensors._dtype.is_floating_point and tensors._storage.device.type == "cpu"):
        # `loss.backward()` of a 0-dim loss that is no view: _root_grads' and _root_edges' answer, made directly
        if create_graph:
            _warn_reference_cycle()
        execute([(tensors._grad_fn, 0)], [Tensor._wrap(np.array(1, tensors._dtype.np))], retain_graph=retain_graph,
                create_graph=create_graph)
        return
    outputs = [tensors] if isinstance(tensors, Tensor) else _as_list(tensors)
    grads = _root_grads(outputs, _as_list(grad_tensors if grad_tensors is not None else grad_variables),
                        "backward")
    edges = _root_edges(outputs)
    if create_graph:
        _warn_reference_cycle()
    if inputs is None:
        execute(edges, grads, retain_graph=retain_graph, create_graph=create_graph)
        return
    ins = _as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    cap = [edge_of(x) for x in ins]
    for e in cap:
        if e[0] is None:  # PyTorch retains the grads of `inputs`, and refuses here in those words
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    got = execute(edges, grads, retain_graph=retain_graph, create_graph=create_graph, capture=cap,
                  accumulate=False)
    prev = _state.enabled
    _state.enabled = create_graph
    try:
        for x, g in zip(ins, got):
            if g is None:
                continue
            if x._grad_fn is None:
                _accumulate(x, g)  # its hooks ran when the gradient was captured
            else:
                _retain(x, g)
    finally:
        _state.enabled = prev


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor | None, ...] | dict:
    """The gradients of `outputs` w.r.t. `inputs` (nothing is accumulated into `.grad`).

    Args:
        outputs: tensor(s) to differentiate.
        inputs: tensor(s) to differentiate with respect to.
        grad_outputs: the gradient w.r.t. each output (None: 1 for a one-element output).
        retain_graph: keep saved tensors for another backward (default: `create_graph`).
        create_graph: record the backward pass, so the result can be differentiated again.
        allow_unused: return None for an input that `outputs` do not depend on (else raise).
        is_grads_batched: the first dim of every `grad_outputs` entry is a batch of vectors; each
            result gets that batch dim in front (one backward per vector, as PyTorch's vmap fallback).
        materialize_grads: return zeros instead of None for unused inputs.
        only_inputs: deprecated and ignored (False warns, as PyTorch's).

    Returns:
        A tuple with one gradient per input, or a dict with `inputs`' keys where `inputs` is a dict.

    Example:
        >>> from ember.autograd import tensor
        >>> x = tensor([3.0], requires_grad=True)
        >>> grad((x * x).sum(), x)[0]
        tensor([6.])
    """
    if isinstance(inputs, Mapping) and type(inputs) is not dict:
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if type(inputs) is dict:  # PyTorch 2.13 keys the gradients as the inputs are keyed
        return dict(zip(inputs, grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph,
                                     True, allow_unused, is_grads_batched, materialize_grads)))
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    if not ins:  # PyTorch checks this before the outputs
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _root_grads(outs, _as_list(grad_outputs), "grad")
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(outs)
    cap = []
    for x in ins:
        if isinstance(x, GradientEdge):  # differentiate w.r.t. an edge of the graph, as PyTorch's
            cap.append((x.node, x.output_nr))
            continue
        if not isinstance(x, Tensor):
            raise TypeError(f"grad: inputs must be tensors; got {type(x).__name__}")
        e = edge_of(x)
        if e[0] is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        cap.append(e)
    got = execute(edges, grads, retain_graph=retain_graph, create_graph=create_graph, capture=cap,
                  accumulate=False)
    res = []
    for i, (x, g) in enumerate(zip(ins, got)):
        if g is None:
            if materialize_grads:
                g = zeros_like(x)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        elif not create_graph:
            g = g.detach()
        res.append(g)
    return tuple(res)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """`grad(..., is_grads_batched=True)`: one vector-Jacobian product per row of the batched
    `grad_outputs`, stacked along a new first dim."""
    from ember.core.ops.join import stack

    gos = _as_list(grad_outputs)
    if not gos or any(g is None for g in gos):
        raise RuntimeError("grad: is_grads_batched=True requires a batched tensor in grad_outputs for every output")
    sizes = {g.shape[0] if g.ndim else None for g in gos}
    if None in sizes:
        raise RuntimeError(f"grad: with is_grads_batched=True, every grad_outputs entry needs the same batch size "
                           f"in its first dim; got shapes {[tuple(g.shape) for g in gos]}")
    if len(sizes) != 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{[g.shape[0] for g in gos]} for the mapped dimension")
    for i, (g, t) in enumerate(zip(gos, _as_list(outputs))):
        if isinstance(t, Tensor) and g._shape[1:] != t._shape:
            # PyTorch's message shows the grad_output's shape without its first two dims (its batched view's)
            raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                               "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                               f"shape of corresponding output, but a mismatch was detected: grad_output[{i}] has a "
                               f"shape of {Size(g._shape[2:])!r} and output[{i}] has a shape of {Size(t._shape)!r}. "
                               "If you only want some tensors in `grad_output` to be considered batched, consider "
                               "using vmap.")
    (n,) = sizes
    ins = _as_list(inputs)
    keep = create_graph if retain_graph is None else retain_graph
    rows = [grad(outputs, ins, [g[i] for g in gos], retain_graph=True if i < n - 1 else keep,
                 create_graph=create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
            for i in range(n)]
    return tuple(None if rows and rows[0][k] is None else
                 stack([r[k] for r in rows]) if n else zeros_like(x).unsqueeze(0)[:0]
                 for k, x in enumerate(ins))

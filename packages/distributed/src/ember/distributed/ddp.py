"""DistributedDataParallel: one model replica per process, gradients averaged during backward.

NOTE [ DDP buckets and the end of backward ]
At construction, rank 0's parameters and buffers are broadcast so every replica starts equal
(one message per dtype, as the buffers at every forward).
The parameters that require grad are split, in reverse registration order (roughly the order
backward produces their gradients), into buckets by PyTorch's rule: a bucket takes parameters
until it holds at least `bucket_cap_mb` (the first one 1 MiB, so communication starts early), one
dtype per bucket. Each bucket is one collective, a synchronization of the ranks: on a loaded
machine one costs far more than its bytes (the peer is often not running). A post-accumulate-grad
hook on each parameter copies its fresh `.grad`, divided by the world size, into its bucket's flat
buffer (one pass: the division is folded into the copy); with `gradient_as_bucket_view=True` it
then points `.grad` at its slice of the bucket, so from the next backward on the engine accumulates
straight into the bucket and the hook only divides in place (no copy in, and none out). When a
bucket's last gradient has arrived, the bucket is all-reduced with MPI's nonblocking Iallreduce
while backward goes on computing the earlier layers (each later gradient's hook tests the
requests in flight: MPI progresses only inside its calls). Buckets are launched strictly in index
order (a ready bucket waits for the ones before it) because MPI matches collectives by the order
they are issued on every rank. When the last bucket has been launched, every parameter's gradient
of this iteration exists, so the hook of that last gradient waits for all buckets and writes the
averages back into `.grad` (nothing to write for bucket views): the end of the reduction needs no
callback from the engine. With `find_unused_parameters`, the graph of the forward output is
walked and the parameters it does not reach are marked ready at once (zeros), and a used-mask is
reduced after the buckets so that a parameter no rank used keeps `.grad` as it was.
Inside `no_sync()`, hooks do nothing and gradients accumulate locally; the next synchronized backward reduces the sums.
A communication hook (`register_comm_hook`) replaces the Iallreduce of a bucket: it receives the
bucket's undivided gradients and returns a Future of the reduced buffer, waited for at the end.
Under `join()` (NOTE [ Join: shadowing the collectives of the ranks still training ] in join.py),
each forward first notifies the join context, then syncs buffers from the highest-ranked rank still
training, then all-reduces whether a synchronized backward follows; a joined rank's `_DDPJoinHook`
issues the same collectives, then one all-reduce of zeros per bucket (through the comm hook when
there is one), so the ranks still training average over the world size with zeros from the joined.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import numpy as np

from ember.autograd.graph import AccumulateGrad
from ember.autograd.grad_mode import is_grad_enabled
from ember.core.futures import Future
from ember.core.tensor import Tensor
from ember.nn import Module

from ember.distributed import c10d
from ember.distributed.comm_hooks import bucket_of
from ember.distributed.join import Join, Joinable, JoinHook, _all_reduce_scalar, _JoinConfig
from ember.distributed.node_buckets import NodeBuckets, node_buckets

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    """A flat buffer of gradients of one dtype (`flat`, the tensor whose slices `views` may become
    the parameters' `.grad`; `buf`, its numpy array that MPI reduces), and this backward's state."""

    __slots__ = ("index", "params", "offsets", "flat", "buf", "parts", "what", "views", "pending", "ready", "req",
                 "used", "kept")

    def __init__(self, index: int, params: list, dtype, node: NodeBuckets | None) -> None:
        self.index = index
        self.params = params  # (param index, param)
        self.offsets = []
        n = 0
        for _, p in params:
            self.offsets.append(n)
            n += p.numel()
        # every rank's bucket in the node's shared memory (NOTE [ Reducing buckets in shared memory ]), or a private one
        self.parts = node.allocate(n, dtype) if node is not None else None
        self.what = f"DDP all_reduce of gradient bucket {index}"
        self.flat = Tensor._wrap(self.parts[node.rank] if self.parts is not None else np.zeros(n, dtype))
        self.buf = self.flat._np()
        self.views = [self.flat[o:o + p.numel()].view(p.shape) for o, (_, p) in zip(self.offsets, params)]
        self.kept: dict[int, np.ndarray] = {}  # unused parameters' bucket-view gradients, kept through the sum
        self.pending = len(params)
        self.ready = False
        self.req = None
        self.used = np.zeros(len(params), np.uint8)


class DistributedDataParallel(Module, Joinable):
    """Data parallelism over the processes of a group: wrap the model, train as usual.

    Args:
        module: the model; every rank must build the same architecture.
        device_ids, output_device, dim: accepted for PyTorch compatibility (one device per process).
        broadcast_buffers: broadcast rank 0's buffers (e.g. BatchNorm statistics) at every forward.
        process_group: the group to average over (the default group when None).
        device_mesh: a 1-D DeviceMesh whose group to average over, instead of `process_group`.
        bucket_cap_mb: the size of a gradient bucket in MiB (25 by default, PyTorch's).
        find_unused_parameters: walk the forward output's graph so that parameters it does not use
            do not stall the reduction.
        gradient_as_bucket_view: make each CPU parameter's `.grad` a view of its gradient bucket
            (no copy into the bucket and none back: less memory traffic; `.grad` is then
            overwritten in place by every synchronized backward).

    With uneven inputs across ranks, train inside `with ddp.join():` (see `join`).

    Raises:
        RuntimeError: the process group is not initialized, or a backward left parameters without
            gradients and `find_unused_parameters` is False (at the next forward, like PyTorch).
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False) -> None:
        super().__init__()
        if not c10d.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_mesh is not None:
            if device_mesh.ndim != 1:
                raise RuntimeError(f"Only 1D device mesh is supported, but got {device_mesh}.")
            self.device_mesh = device_mesh
            process_group = device_mesh.get_group(mesh_dim=0)
        self.module = module
        self.process_group = c10d._pg(process_group)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._world = self.process_group.size()
        self._params: list[Tensor] = []
        seen = set()
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                self._params.append(p)
        if init_sync:
            self._sync_module_states()
        self._node = node_buckets(self.process_group) if self.process_group.rank() >= 0 else None
        self._buckets = self._make_buckets()
        self._slot = {}
        for b in self._buckets:
            for k, (i, _) in enumerate(b.params):
                self._slot[i] = (b, k)
        self._hooks = [p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(self._params)]
        self._armed = False       # a synchronized backward is expected (set by forward)
        self._started = False     # its first gradient has arrived (so it must finish before the next forward)
        self._unused: list[int] = []
        self._next = 0            # the next bucket to launch
        self._inflight: list = []  # MPI requests of the buckets launched during backward
        self._used_req = None
        self._used_all = None
        self._timeline: list[tuple] = []   # (event, index, perf_counter()): for tests of the overlap
        self._comm_hook = None
        self._comm_state = None
        self._join_config = _JoinConfig.construct_disabled_join_config()
        self._divide_by_initial_world_size = True
        self._divisor = self._world   # what each local gradient is divided by before the sum

    # ------------------------------------------------------------------------------ construction

    def _src(self) -> int:
        return self.process_group.ranks[0]

    def _sync_module_states(self, src: int | None = None, buffers: bool = True) -> None:
        """Global rank `src`'s (rank 0's) parameters and buffers to every rank (async, then waited for together)."""
        src = self._src() if src is None else src
        tensors = list(self.module.parameters()) + (list(self.module.buffers()) if buffers else [])
        self._broadcast_coalesced(tensors, src)

    def _broadcast_coalesced(self, tensors: list[Tensor], src: int) -> None:
        """Global rank `src`'s `tensors` to every rank, one flat message per dtype and device (PyTorch's
        `_broadcast_coalesced`): each collective is a synchronization of the ranks, and a model's
        buffers are many and small (a BatchNorm has three)."""
        groups: dict = {}
        for t in tensors:
            groups.setdefault((t.dtype, t.device), []).append(t.detach())
        sent = []
        for ts in groups.values():
            flat = Tensor._wrap(np.concatenate([t.cpu()._np().reshape(-1) for t in ts]))
            sent.append((ts, flat, c10d.broadcast(flat, src, self.process_group, async_op=True)))
        if c10d.get_rank() == src:
            for _, _, w in sent:
                if w is not None:
                    w.wait()
            return
        for ts, flat, w in sent:
            if w is None:
                continue
            w.wait()
            arr, o = flat._np(), 0
            for t in ts:
                c10d._write(t, arr[o:o + t.numel()].reshape(t.shape))
                o += t.numel()

    def _make_buckets(self) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        open_: dict = {}   # dtype -> (params, nbytes)
        order = list(reversed(list(enumerate(self._params))))
        for i, p in order:  # PyTorch's compute_bucket_assignment_by_size: close a bucket once it reaches its cap
            key = p.dtype.np
            cur, nbytes = open_.get(key, ([], 0))
            cur.append((i, p))
            nbytes += p.numel() * p.element_size()
            cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if not buckets else self.bucket_bytes_cap
            if nbytes >= cap:
                buckets.append(_Bucket(len(buckets), cur, key, self._node))
                cur, nbytes = [], 0
            open_[key] = (cur, nbytes)
        for key, (cur, _) in open_.items():
            if cur:
                buckets.append(_Bucket(len(buckets), cur, key, self._node))
        return buckets

    def register_comm_hook(self, state, hook) -> None:
        """Reduce each gradient bucket with `hook(state, bucket)`, which returns a Future of the
        reduced flat buffer (see `ember.distributed.comm_hooks`); once per DDP instance.

        Raises:
            RuntimeError: a hook is already registered.
            TypeError: `hook` is not callable.
        """
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable; got {type(hook).__name__}")
        self._comm_hook = hook
        self._comm_state = state

    def bucket_sizes(self) -> list[int]:
        """The number of parameters in each bucket, in launch order."""
        return [len(b.params) for b in self._buckets]

    # ---------------------------------------------------------------------------------- forward

    def forward(self, *inputs, **kwargs):
        if self._armed and self._started:
            missing = [i for b in self._buckets for k, (i, _) in enumerate(b.params) if not b.ready and b.used[k] == 0]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`; parameter indices which did not receive grad for "
                f"rank {c10d.get_rank()}: {' '.join(map(str, sorted(missing)))}")
        sync = is_grad_enabled() and self.require_backward_grad_sync and self.process_group.rank() >= 0
        joining = self._join_config.enable
        if joining:
            work = Join.notify_join_context(self)
            if work is not None:
                work.wait()
                training = int(work.result()[0]._np()[0])
                self._divisor = self._world if self._divide_by_initial_world_size else training
        if self.broadcast_buffers:
            self._sync_buffers(joined=False)
        if joining:
            self._global_backward_sync(sync)
        out = self.module(*inputs, **kwargs)
        if sync:
            self._prepare_for_backward(out)
        else:
            self._armed = False
        return out

    def _sync_buffers(self, joined: bool) -> None:
        """Broadcast the buffers from rank 0, or under join from the highest-ranked rank still training
        (rank 0 may have joined with stale buffers)."""
        bufs = list(self.module.buffers())
        if not bufs:
            return
        src = self._src()
        if self._join_config.enable:
            src = self.process_group.ranks[self._find_common_rank(self.process_group.rank(), not joined)]
        self._broadcast_coalesced(bufs, src)

    def _find_common_rank(self, rank: int, candidate: bool) -> int:
        """The highest group rank among the ranks that are candidates."""
        common = int(_all_reduce_scalar(rank if candidate else -1, self.process_group, c10d.ReduceOp.MAX))
        if common == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process.")
        return common

    def _global_backward_sync(self, sync: bool) -> bool:
        """Whether any rank runs a synchronized backward in this iteration (joined ranks say no)."""
        return _all_reduce_scalar(1.0 if sync else 0.0, self.process_group) > 0

    def _prepare_for_backward(self, out) -> None:
        self._armed = True
        self._started = False
        self._next = 0
        self._inflight = []
        self._timeline = []
        for b in self._buckets:
            b.pending = len(b.params)
            b.ready = False
            b.req = None
            b.used[:] = 0
            b.kept.clear()
        if self.find_unused_parameters:
            reached = _reachable_leaves(out)
            self._unused = [i for i, p in enumerate(self._params) if id(p) not in reached]

    def _mark_unused_ready(self) -> None:
        """Zeros for the parameters the forward graph does not reach: at the first gradient of
        backward, like PyTorch, so a forward that no backward follows launches nothing."""
        for i in self._unused:
            b, k = self._slot[i]
            view = b.views[k]
            if self._params[i].grad is view:  # its .grad is the bucket's slot: keep it through the zero sum
                b.kept[k] = view._np().copy()
            view._np()[...] = 0
            self._mark_ready(b)

    # --------------------------------------------------------------------------------- backward

    def _make_hook(self, i: int):
        def hook(p: Tensor) -> None:
            if not self._armed:
                return
            b, k = self._slot[i]
            if b.used[k]:
                raise RuntimeError(f"DistributedDataParallel: parameter {i} received its gradient twice in one "
                                   "backward; call backward once per forward (retain_graph is not supported)")
            b.used[k] = 1
            if not self._started:
                self._started = True
                self._mark_unused_ready()
            self._timeline.append(("ready", i, time.perf_counter()))
            g = p.grad
            view = b.views[k]
            dst = view._np()
            scale = 1.0 / self._divisor if dst.dtype.kind in "fc" and self._comm_hook is None else 1
            if g is view:  # backward accumulated straight into the bucket
                if scale != 1:
                    np.multiply(dst, scale, out=dst)
            else:
                src = g.detach().cpu()._np() if g.device.type != "cpu" else g._np()
                np.multiply(src, scale, out=dst, casting="unsafe")
                self._timeline.append(("copy", i, time.perf_counter()))
                if self.gradient_as_bucket_view and p.device.type == "cpu":
                    p.grad = view
            self._mark_ready(b)
            self._launch_ready()

        return hook

    def _mark_ready(self, b: _Bucket) -> None:
        b.pending -= 1
        if b.pending == 0:
            b.ready = True

    def _launch_ready(self) -> None:
        MPI = c10d._mpi()
        pg = self.process_group
        buckets = self._buckets
        while self._next < len(buckets) and buckets[self._next].ready:
            b = buckets[self._next]
            self._next += 1
            self._timeline.append(("launch", b.index, time.perf_counter()))
            if self._comm_hook is not None:
                bucket = bucket_of(b.index, b.buf, [p for _, p in b.params], b.offsets, self._next == len(buckets))
                b.req = self._comm_hook(self._comm_state, bucket)
                if not isinstance(b.req, Future):
                    raise TypeError(f"DDP communication hook must return a Future; got {type(b.req).__name__}")
            else:
                if b.parts is not None:
                    b.req = self._node.launch(b.what)
                else:
                    b.req = c10d.Work([pg._comm.Iallreduce(MPI.IN_PLACE, b.buf, MPI.SUM)], None, pg, b.what)
                self._inflight.append(b.req._reqs[0])
        # MPI progresses a nonblocking collective only inside MPI calls (Open MPI has no progress
        # thread): test the buckets in flight at every gradient, so they advance during backward
        if self._comm_hook is not None:
            for k in range(self._next):
                buckets[k].req.done()
        elif self._inflight:
            MPI.Request.Testall(self._inflight)
        if self._next == len(buckets) and self._armed:
            self._finish()

    def _finish(self) -> None:
        """Every bucket is launched: wait for them and write the averaged gradients into `.grad`."""
        self._armed = False
        pg = self.process_group
        used = None
        if self.find_unused_parameters:
            used = np.concatenate([b.used for b in self._buckets])
            MPI = c10d._mpi()
            c10d.Work([pg._comm.Iallreduce(MPI.IN_PLACE, used, MPI.MAX)], None, pg,
                      "DDP all_reduce of the used-parameter mask").wait()
        if self._comm_hook is None and self._node is not None:
            self._node.finish([b for b in self._buckets if b.parts is not None])
        pos = 0
        for b in self._buckets:
            flat = self._reduced(b)
            bumped = False
            for k, (_, p) in enumerate(b.params):
                if used is not None and not used[pos + k]:
                    if k in b.kept:  # no rank used it: its bucket-view .grad is left as it was
                        b.views[k]._np()[...] = b.kept[k]
                    continue
                g = p.grad
                view = b.views[k]
                if flat is b.buf and (g is view or (self.gradient_as_bucket_view and p.device.type == "cpu")):
                    if g is not view:
                        p.grad = view
                    if not bumped:
                        b.flat._storage.bump()  # MPI wrote the bucket: a write outside any op
                        bumped = True
                    continue
                avg = flat[b.offsets[k]:b.offsets[k] + p.numel()].reshape(p.shape)
                if g is None:
                    p.grad = Tensor._wrap(avg.copy()).to(p.device)
                else:
                    c10d._write(g, avg)
                    self._timeline.append(("copy back", k, time.perf_counter()))
            pos += len(b.params)
        self._timeline.append(("done", -1, time.perf_counter()))

    def _reduced(self, b: _Bucket) -> np.ndarray:
        """Wait for bucket `b`'s reduction; its flat result."""
        got = b.req.wait()
        if self._comm_hook is None:
            return b.buf
        if not isinstance(got, Tensor) or got.numel() != b.buf.size:
            raise RuntimeError(f"DDP communication hook: the Future of bucket {b.index} must hold a tensor of "
                               f"{b.buf.size} elements; got {got!r:.80}")
        return got.detach().cpu()._np().reshape(-1)

    def _shadow_backward(self) -> None:
        """On a joined rank: the all-reduces of one synchronized backward, with zero gradients."""
        MPI = c10d._mpi()
        pg = self.process_group
        pending = []
        shared = [b for b in self._buckets if b.parts is not None] if self._comm_hook is None else []
        kept = [b.buf.copy() for b in shared]  # the bucket may be the parameters' .grad (bucket views)
        for b in self._buckets:
            zeros = np.zeros_like(b.buf)  # not the bucket: it may be the parameters' .grad (bucket views)
            what = f"DDP join: all_reduce of gradient bucket {b.index}"
            if b in shared:
                b.buf[...] = 0
                b.req = self._node.launch(what)
            elif self._comm_hook is not None:
                last = b.index == len(self._buckets) - 1
                pending.append(self._comm_hook(self._comm_state,
                                               bucket_of(b.index, zeros, [p for _, p in b.params], b.offsets, last)))
            else:
                pending.append(c10d.Work([pg._comm.Iallreduce(MPI.IN_PLACE, zeros, MPI.SUM)], None, pg, what))
        if self.find_unused_parameters:
            used = np.zeros(sum(len(b.params) for b in self._buckets), np.uint8)
            pending.append(c10d.Work([pg._comm.Iallreduce(MPI.IN_PLACE, used, MPI.MAX)], None, pg,
                                     "DDP join: all_reduce of the used-parameter mask"))
        for w in pending:
            w.wait()
        if shared:
            self._node.finish(shared)
            for b, k in zip(shared, kept):
                b.buf[...] = k

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Join:
        """A context manager for training with a different number of inputs on each rank: a rank
        that runs out early shadows the others' all-reduces (contributing zero gradients) until all
        have finished, then every rank takes the model of a rank that finished last.

        Args:
            divide_by_initial_world_size: divide the summed gradients by the world size (True,
                PyTorch's default) or by the number of ranks still training.
            enable: False makes the context manager do nothing.
            throw_on_early_termination: raise `RuntimeError` on every rank when one runs out.

        Example: `with ddp.join(): for x, y in my_batches: loss(ddp(x), y).backward(); opt.step()`.
        """
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs) -> JoinHook:
        """DDP's `JoinHook` (`divide_by_initial_world_size` from `kwargs`, True by default)."""
        return _DDPJoinHook(self, divide_by_initial_world_size=kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        p = next(iter(self.module.parameters()), None)
        return p.device if p is not None else None

    @property
    def join_process_group(self) -> c10d.ProcessGroup:
        return self.process_group

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within this context backward accumulates gradients locally without communicating; the
        first synchronized backward after it averages the accumulated sums."""
        prev = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = prev


class _DDPJoinHook(JoinHook):
    """A joined rank's DDP: shadows the forward's and backward's collectives; at the end, copies
    the model of a last joiner to every rank."""

    def __init__(self, ddp: DistributedDataParallel, divide_by_initial_world_size: bool) -> None:
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self) -> None:
        ddp = self.ddp
        if ddp.broadcast_buffers:
            ddp._sync_buffers(joined=True)
        if ddp._global_backward_sync(False):
            ddp._shadow_backward()

    def post_hook(self, is_last_joiner: bool) -> None:
        ddp = self.ddp
        src = ddp._find_common_rank(ddp.process_group.rank(), is_last_joiner)
        ddp._sync_module_states(ddp.process_group.ranks[src], buffers=ddp.broadcast_buffers)


def _reachable_leaves(out) -> set[int]:
    """The ids of the leaf tensors whose AccumulateGrad the graph of `out` reaches."""
    stack = []
    for t in _tensors(out):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
    seen: set[int] = set()
    leaves: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, AccumulateGrad):
            v = n.variable
            if v is not None:
                leaves.add(id(v))
            continue
        for nxt, _ in n.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return leaves


def _tensors(out) -> Iterator[Tensor]:
    if isinstance(out, Tensor):
        yield out
    elif isinstance(out, dict):
        for v in out.values():
            yield from _tensors(v)
    elif isinstance(out, (list, tuple)):
        for v in out:
            yield from _tensors(v)

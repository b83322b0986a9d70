"""Every collective on the ranks of this job, checked against numpy; prints one OK line per check."""

import datetime
import sys

import numpy as np

import ember.autograd as torch
import ember.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.get_backend() == "mpi"


def local(rank, shape=(3, 4), dtype=np.float64):
    return (np.arange(np.prod(shape)).reshape(shape) + 10 * rank + 1).astype(dtype)


def ok(name, got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


every = np.stack([local(k) for k in range(n)])
for op, ref in [(dist.ReduceOp.SUM, every.sum(0)), (dist.ReduceOp.AVG, every.mean(0)),
                (dist.ReduceOp.MAX, every.max(0)), (dist.ReduceOp.MIN, every.min(0)),
                (dist.ReduceOp.PRODUCT, every.prod(0))]:
    t = torch.tensor(local(r))
    v = t._version
    assert dist.all_reduce(t, op=op) is None
    ok(f"all_reduce {op.name}", t.numpy(), ref)
    assert t._version > v

# float32 and int64, a non-contiguous view (copied in and out), async
t = torch.tensor(local(r, dtype=np.float32))
dist.all_reduce(t)
ok("all_reduce float32", t.numpy(), every.sum(0).astype(np.float32))
t = torch.tensor(local(r, dtype=np.int64))
dist.all_reduce(t, op=dist.ReduceOp.MAX)
ok("all_reduce int64", t.numpy(), every.max(0))
base = torch.tensor(local(r))
view = base.t()
dist.all_reduce(view)
ok("all_reduce non-contiguous", base.numpy(), every.sum(0))
t = torch.tensor(local(r))
w = dist.all_reduce(t, async_op=True)
w.wait()
assert w.is_completed()
ok("all_reduce async", t.numpy(), every.sum(0))

# a large message (the blocking path on the communication thread), SUM and AVG
big = np.arange(1 << 19, dtype=np.float64) % 97
for op, want in [(dist.ReduceOp.SUM, sum(big * (k + 1) for k in range(n))),
                 (dist.ReduceOp.AVG, sum(big * (k + 1) for k in range(n)) / n)]:
    t = torch.tensor(big * (r + 1))
    dist.all_reduce(t, op=op)
    ok(f"all_reduce 4 MiB {op.name}", t.numpy(), want)

# bad input raises before anything is sent, so the ranks stay in step
for bad in [lambda: dist.all_reduce(torch.tensor(local(r)), op="sum"),
            lambda: dist.all_reduce(torch.tensor(big), op="sum"),
            lambda: dist.all_reduce(torch.tensor(local(r, dtype=np.int64)), op=dist.ReduceOp.AVG),
            lambda: dist.all_gather([torch.zeros(3, 4)], torch.zeros(3, 4)) if n > 1 else (_ for _ in ()).throw(
                ValueError("world_size"))]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        assert "ReduceOp" in str(e) or "floating point" in str(e) or "world_size" in str(e), e
    else:
        raise AssertionError("no error")
print(f"rank {r} OK bad input raises", flush=True)

# broadcast from the last rank
t = torch.tensor(local(r))
dist.broadcast(t, src=n - 1)
ok("broadcast", t.numpy(), local(n - 1))

# all_gather and all_gather_single
outs = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)]
dist.all_gather(outs, torch.tensor(local(r)))
ok("all_gather", np.stack([o.numpy() for o in outs]), every)
out = torch.zeros(n * 3, 4, dtype=torch.float64)
dist.all_gather_single(out, torch.tensor(local(r)))
ok("all_gather_single", out.numpy(), every.reshape(n * 3, 4))

# reduce_scatter_single: rank k gets chunk k of the sum
inp = torch.tensor(np.concatenate([local(r) + k for k in range(n)]))
out = torch.zeros(3, 4, dtype=torch.float64)
dist.reduce_scatter_single(out, inp)
ok("reduce_scatter_single", out.numpy(), every.sum(0) + n * r)

# reduce to rank 0
t = torch.tensor(local(r))
dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
ok("reduce", t.numpy(), every.sum(0) if r == 0 else local(r))

# gather to rank 1, scatter from rank 0
dst = 1 % n
gl = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)] if r == dst else None
dist.gather(torch.tensor(local(r)), gl, dst=dst)
if r == dst:
    ok("gather", np.stack([g.numpy() for g in gl]), every)
t = torch.zeros(3, 4, dtype=torch.float64)
dist.scatter(t, [torch.tensor(local(k) * 2) for k in range(n)] if r == 0 else None, src=0)
ok("scatter", t.numpy(), local(r) * 2)

# send/recv around a ring, and isend/irecv
t = torch.tensor(local(r))
got = torch.zeros(3, 4, dtype=torch.float64)
if r % 2 == 0:
    dist.send(t, (r + 1) % n)
    src = dist.recv(got, (r - 1) % n)
else:
    src = dist.recv(got)
    dist.send(t, (r + 1) % n)
assert src == (r - 1) % n, src
ok("send/recv", got.numpy(), local((r - 1) % n))
got = torch.zeros(3, 4, dtype=torch.float64)
ws = [dist.isend(torch.tensor(local(r)), (r + 1) % n), dist.irecv(got, (r - 1) % n)]
for w in ws:
    w.wait()
ok("isend/irecv", got.numpy(), local((r - 1) % n))

# a subgroup of the even ranks (every rank calls new_group)
evens = list(range(0, n, 2))
g = dist.new_group(evens)
t = torch.tensor(local(r))
dist.all_reduce(t, group=g)
if r in evens:
    assert dist.get_rank(g) == evens.index(r) and dist.get_world_size(g) == len(evens)
    ok("new_group all_reduce", t.numpy(), np.stack([local(k) for k in evens]).sum(0))
else:
    assert dist.get_rank(g) == -1
    ok("new_group non-member untouched", t.numpy(), local(r))

dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"rank {r} DONE", flush=True)
sys.exit(0)

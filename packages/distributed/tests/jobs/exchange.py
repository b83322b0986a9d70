"""All-to-all, list reduce-scatter, batched p2p, object collectives, group-rank helpers and DDP
communication hooks on the ranks of this job, against numpy; prints one OK line per check."""

import datetime

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
from ember.distributed import comm_hooks, quantization_hooks
from ember.nn import Linear

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()


def ok(name, got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


# all_to_all_single, even splits: rank r sends rows [2k, 2k+1] of its input to rank k
inp = torch.tensor(np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3) + 100 * r)
out = torch.zeros(2 * n, 3)
dist.all_to_all_single(out, inp)
want = np.concatenate([np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3)[2 * r:2 * r + 2] + 100 * k
                       for k in range(n)])
ok("all_to_all_single even", out.numpy(), want)

# uneven splits: rank r sends k + 1 rows to rank k; receives r + 1 rows from each rank
send_sizes = [k + 1 for k in range(n)]
inp = torch.tensor(np.concatenate([np.full((k + 1, 2), 10 * r + k, np.int64) for k in range(n)]))
out = torch.zeros((r + 1) * n, 2, dtype=torch.int64)
w = dist.all_to_all_single(out, inp, output_split_sizes=[r + 1] * n, input_split_sizes=send_sizes, async_op=True)
w.wait()
ok("all_to_all_single uneven", out.numpy(), np.concatenate([np.full((r + 1, 2), 10 * k + r) for k in range(n)]))

# all_to_all of lists with shapes varying by destination
ins = [torch.full((k + 1,), float(r * n + k)) for k in range(n)]
outs = [torch.zeros(r + 1) for _ in range(n)]
dist.all_to_all(outs, ins)
ok("all_to_all", np.concatenate([o.numpy() for o in outs]),
   np.concatenate([np.full(r + 1, k * n + r) for k in range(n)]))

# reduce_scatter of a list: rank r gets sum over ranks of input_list[r]
inputs = [torch.full((2, 2), float(r + 10 * k)) for k in range(n)]
out = torch.zeros(2, 2)
dist.reduce_scatter(out, inputs)
ok("reduce_scatter", out.numpy(), np.full((2, 2), sum(k + 10 * r for k in range(n))))

# batched point-to-point around a ring
send = torch.full((3,), float(r))
recv = torch.zeros(3)
ops = [dist.P2POp(dist.isend, send, (r + 1) % n), dist.P2POp(dist.irecv, recv, (r - 1) % n)]
for w in dist.batch_isend_irecv(ops):
    w.wait()
ok("batch_isend_irecv ring", recv.numpy(), np.full(3, float((r - 1) % n)))

# objects
objs = [{"rank": r, "ids": list(range(r))}, f"s{r}"] if r == 0 else [None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == [{"rank": 0, "ids": []}, "s0"], objs
print(f"rank {r} OK broadcast_object_list", flush=True)
got = [None] * n
dist.all_gather_object(got, ("x" * (r * 50), r))
assert got == [("x" * (k * 50), k) for k in range(n)], got
print(f"rank {r} OK all_gather_object", flush=True)
gl = [None] * n if r == n - 1 else None
dist.gather_object({"r": r}, gl, dst=n - 1)
if r == n - 1:
    assert gl == [{"r": k} for k in range(n)], gl
    print(f"rank {r} OK gather_object", flush=True)
res = [None]
dist.scatter_object_list(res, [list(range(k)) for k in range(n)] if r == 0 else None, src=0)
assert res == [list(range(r))], res
print(f"rank {r} OK scatter_object_list", flush=True)
if r == 0:
    dist.send_object_list([{"a": 1}, [2, 3]], dst=n - 1)
if r == n - 1:
    box = [None, None]
    assert dist.recv_object_list(box, src=0) == 0 and box == [{"a": 1}, [2, 3]], box
    print(f"rank {r} OK send_object_list", flush=True)

# group-rank helpers on a group of the odd ranks
odd = dist.new_group([k for k in range(n) if k % 2])
assert dist.get_process_group_ranks(odd) == [k for k in range(n) if k % 2]
assert dist.get_global_rank(odd, 0) == 1 and dist.get_group_rank(odd, 1) == 0
dist.monitored_barrier()
print(f"rank {r} OK group ranks", flush=True)

# DDP with communication hooks: the default hook and fp16 compression give the averaged gradient, the
# quantization hooks the average within one uint8 step of the widest rank's range (tolerance None)
for name, hook, tol in [("allreduce_hook", comm_hooks.allreduce_hook, 1e-6),
                        ("fp16_compress_hook", comm_hooks.fp16_compress_hook, 2e-3),
                        ("quantization_pertensor_hook", quantization_hooks.quantization_pertensor_hook, None),
                        ("quantization_perchannel_hook", quantization_hooks.quantization_perchannel_hook, None)]:
    torch.manual_seed(0)
    model = Linear(4, 3)
    ddp = dist.DistributedDataParallel(model, bucket_cap_mb=0.00001)
    ddp.register_comm_hook(None, hook)
    x = torch.tensor(np.arange(8, dtype=np.float32).reshape(2, 4) * (r + 1) / 10)
    ddp(x).pow(2).sum().backward()
    xs = [np.arange(8, dtype=np.float32).reshape(2, 4) * (k + 1) / 10 for k in range(n)]
    w, b = model.weight.detach().numpy().astype(np.float64), model.bias.detach().numpy().astype(np.float64)
    grads_w = [2 * ((xk @ w.T + b).T @ xk) for xk in xs]
    grads_b = [2 * (xk @ w.T + b).sum(0) for xk in xs]
    if tol is None:
        step = max(max(g.max(), 0) - min(g.min(), 0) for g in grads_w + grads_b) / 255
        rtol, atol = 0, step
    else:
        rtol = atol = tol
    np.testing.assert_allclose(model.weight.grad.numpy(), np.mean(grads_w, 0), rtol=rtol, atol=atol)
    np.testing.assert_allclose(model.bias.grad.numpy(), np.mean(grads_b, 0), rtol=rtol, atol=atol)
    print(f"rank {r} OK ddp {name}", flush=True)
    try:
        ddp.register_comm_hook(None, hook)
    except RuntimeError as e:
        assert "can only be called once" in str(e)
    else:
        raise AssertionError("second hook accepted")

# DistributedSampler takes its shard from the default group
from ember.data import DistributedSampler  # noqa: E402

s = DistributedSampler(range(10), shuffle=False)
total = -(-10 // n) * n  # padded by repeating the head
assert (s.num_replicas, s.rank) == (n, r) and list(s) == (list(range(10)) * 2)[:total][r::n], list(s)
print(f"rank {r} OK DistributedSampler", flush=True)

print(f"rank {r} DONE", flush=True)
dist.destroy_process_group()

"""Distributed contrastive plumbing on one process: a gloo group of world size 1 over a HashStore, the
GatherLayer autograd Function (all_gather forward, all_reduce + slice backward), labels offset by rank for a
global NT-Xent, a SyncBatchNorm-free shuffle through broadcast of a randperm, all_reduce of metrics
with ReduceOp, the helpers SSL code guards with is_available/is_initialized, and the errors before init."""

import torch

nn = torch.nn
F = torch.nn.functional
import torch.distributed as dist  # noqa: E402

torch.manual_seed(0)


def get_world_size():
    if not dist.is_available() or not dist.is_initialized():
        return 1
    return dist.get_world_size()


print("before", dist.is_available(), dist.is_initialized(), get_world_size())
for fn in [lambda: dist.get_rank(), lambda: dist.all_reduce(torch.ones(2)), lambda: dist.barrier()]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
print("after", dist.is_initialized(), dist.get_rank(), dist.get_world_size(), dist.get_backend())


class GatherLayer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        output = [torch.zeros_like(x) for _ in range(dist.get_world_size())]
        dist.all_gather(output, x)
        return tuple(output)

    @staticmethod
    def backward(ctx, *grads):
        all_gradients = torch.stack(grads)
        dist.all_reduce(all_gradients)
        return all_gradients[dist.get_rank()]


z1 = torch.randn(4, 6, requires_grad=True)
z2 = torch.randn(4, 6, requires_grad=True)
g1 = torch.cat(GatherLayer.apply(z1), dim=0)
g2 = torch.cat(GatherLayer.apply(z2), dim=0)
print("gathered", g1.shape, g1.grad_fn.name(), type(g1.grad_fn.next_functions[0][0]).__name__)
rank, n = dist.get_rank(), z1.shape[0]
labels = torch.arange(n) + rank * n
logits = F.normalize(z1, dim=1) @ F.normalize(g2, dim=1).T / 0.1
loss = F.cross_entropy(logits, labels) + F.cross_entropy(
    F.normalize(z2, dim=1) @ F.normalize(g1, dim=1).T / 0.1, labels
)
loss.backward()
print("loss", round(loss.item(), 4), round(z1.grad.norm().item(), 4), round(z2.grad.abs().sum().item(), 4))

# collectives on metrics
acc = torch.tensor([3.0, 4.0])
work = dist.all_reduce(acc, op=dist.ReduceOp.SUM, async_op=True)
work.wait()
mx = torch.tensor([2.5])
dist.all_reduce(mx, op=dist.ReduceOp.MAX)
print("reduce", acc.tolist(), mx.tolist(), work.is_completed(), str(dist.ReduceOp.SUM), dist.ReduceOp.AVG)
flags = torch.tensor([1, 3, 7])
dist.all_reduce(flags, op=dist.ReduceOp.BAND)
done = torch.tensor([True, False])
dist.all_reduce(done, op=dist.ReduceOp.BOR)
print("bitwise", flags.tolist(), done.tolist(), repr(dist.ReduceOp.BXOR), dist.supports_complex(dist.ReduceOp.BXOR))
perm = torch.randperm(8)
dist.broadcast(perm, src=0)
print("broadcast", perm.tolist(), torch.argsort(perm).tolist())
objs = [None]
dist.all_gather_object(objs, {"rank": rank, "n": 4})
out = [torch.zeros(2, dtype=torch.long)]
dist.all_gather(out, torch.tensor([rank, 7]))
print("objects", objs, out, dist.get_process_group_ranks(dist.group.WORLD))
t = torch.arange(4.0)
dist.all_reduce(t, op=dist.ReduceOp.AVG) if dist.get_backend() != "gloo" else None
lst = [torch.zeros(3)]
try:
    dist.all_gather(lst, torch.ones(2))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:80])
for fn in [
    lambda: dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1),
    lambda: dist.broadcast(torch.ones(2), src=3),
    lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BXOR),
    lambda: dist.all_gather([torch.zeros(2), torch.zeros(2)], torch.ones(2)),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
dist.destroy_process_group()
print("destroyed", dist.is_initialized(), get_world_size())

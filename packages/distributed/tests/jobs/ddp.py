"""DDP on this job's ranks against one process training on the concatenated batch; prints OK lines."""

import copy
import datetime
import sys
import time

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.distributed import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
torch.manual_seed(100 + r)  # different initial weights on every rank: DDP must broadcast rank 0's
B, STEPS = 8, 4


def mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)).double()


def ok(name, got, want, tol=1e-10):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


def flat(m):
    return np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])


def same_everywhere(name, m):
    mine = torch.tensor(flat(m))
    every = [torch.zeros_like(mine) for _ in range(n)]
    dist.all_gather(every, mine)
    for k in range(n):
        ok(f"{name}: rank {k} has rank 0's parameters", every[k].numpy(), every[0].numpy(), tol=0)


data = np.random.default_rng(0)
X = data.standard_normal((STEPS, n * B, 6))
Y = data.integers(0, 3, (STEPS, n * B))

# 1. training: DDP on each rank's shard == one process on the whole batch
model = mlp()
ddp = DDP(model, bucket_cap_mb=0.001)
ref = copy.deepcopy(model)   # rank 0's weights (just broadcast)
opt = optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
ropt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
for s in range(STEPS):
    xs, ys = torch.tensor(X[s, r * B:(r + 1) * B]), torch.tensor(Y[s, r * B:(r + 1) * B])
    opt.zero_grad()
    F.cross_entropy(ddp(xs), ys).backward()
    opt.step()
    ropt.zero_grad()
    F.cross_entropy(ref(torch.tensor(X[s])), torch.tensor(Y[s])).backward()
    ropt.step()
    same_everywhere(f"step {s}", model)
ok("DDP == single process on the concatenated batch", flat(model), flat(ref))
assert len(ddp.bucket_sizes()) > 1, ddp.bucket_sizes()

# 2. overlap: bucket 0 (the last layer's gradients) is launched before the first layer's gradient exists
opt.zero_grad()
xs, ys = torch.tensor(X[0, r * B:(r + 1) * B]), torch.tensor(Y[0, r * B:(r + 1) * B])
F.cross_entropy(ddp(xs), ys).backward()
t_end = time.perf_counter()
tl = ddp._timeline
launch0 = next(t for e, i, t in tl if e == "launch" and i == 0)
last_ready = max(t for e, i, t in tl if e == "ready")
first_layer_ready = next(t for e, i, t in tl if e == "ready" and i == 0)
assert launch0 < first_layer_ready <= last_ready < t_end, tl
print(f"rank {r} OK overlap: bucket 0 launched {1e3 * (last_ready - launch0):.2f} ms before the last gradient",
      flush=True)

# 3. no_sync: two local backward passes, then a synchronized one == the mean over all micro-batches
opt.zero_grad()
ref.load_state_dict(model.state_dict())
ref.zero_grad()
with ddp.no_sync():
    for s in range(2):
        F.cross_entropy(ddp(torch.tensor(X[s, r * B:(r + 1) * B])), torch.tensor(Y[s, r * B:(r + 1) * B])).backward()
local_only = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
F.cross_entropy(ddp(torch.tensor(X[2, r * B:(r + 1) * B])), torch.tensor(Y[2, r * B:(r + 1) * B])).backward()
for s in range(3):
    F.cross_entropy(ref(torch.tensor(X[s])), torch.tensor(Y[s])).backward()
got = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
want = np.concatenate([p.grad.numpy().ravel() for p in ref.parameters()])
ok("no_sync accumulation", got, want)
assert not np.allclose(local_only, want[: local_only.size])


# 4. find_unused_parameters: a branch used only on rank 0
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 2).double()
        self.b = nn.Linear(4, 2).double()
        self.never = nn.Linear(4, 2).double()

    def forward(self, x, use_b):
        return self.a(x) + (self.b(x) if use_b else 0)


m = Branchy()
d = DDP(m, find_unused_parameters=True)
x = torch.tensor(np.ones((2, 4)) * (r + 1))
d(x, use_b=True)  # a forward that no backward follows (evaluation with grad mode on) is allowed
d(x, use_b=(r == 0)).sum().backward()
# a.weight's gradient is the mean over ranks of sum(x) rows: 2 * (r + 1) per entry
ok("find_unused: used everywhere", m.a.weight.grad.numpy(), np.full((2, 4), 2 * np.mean(np.arange(1, n + 1))))
ok("find_unused: used on rank 0 only", m.b.weight.grad.numpy(), np.full((2, 4), 2.0 / n))
assert m.never.weight.grad is None
print(f"rank {r} OK find_unused: a parameter no rank used keeps grad None", flush=True)

d2 = DDP(Branchy())
d2(x, use_b=False).sum().backward()
try:
    d2(x, use_b=False)
except RuntimeError as e:
    assert "Expected to have finished reduction in the prior iteration" in str(e), e
    print(f"rank {r} OK unused parameters without find_unused_parameters raise", flush=True)
else:
    raise AssertionError("no error for unused parameters")



# 5. gradient_as_bucket_view: the same training; from the second backward on (zero_grad(set_to_none=False))
# no gradient is copied into a bucket or back, every .grad is a view of its bucket, and one step issues
# exactly one MPI call (an Iallreduce) per bucket
class CountingComm:
    """The group's communicator, counting the MPI calls made through it."""

    def __init__(self, comm):
        self.comm, self.calls = comm, []

    def __getattr__(self, name):
        f = getattr(self.comm, name)

        def call(*args, **kwargs):
            self.calls.append(name)
            return f(*args, **kwargs)

        return call


vmodel, vref = mlp(), mlp()
vddp = DDP(vmodel, bucket_cap_mb=0.001, gradient_as_bucket_view=True)
vref.load_state_dict(vmodel.state_dict())
vopt = optim.SGD(vddp.parameters(), lr=0.1, momentum=0.9)
vropt = optim.SGD(vref.parameters(), lr=0.1, momentum=0.9)
pg = dist.group.WORLD
for s in range(STEPS):
    xs, ys = torch.tensor(X[s, r * B:(r + 1) * B]), torch.tensor(Y[s, r * B:(r + 1) * B])
    vopt.zero_grad(set_to_none=False)
    counting = pg._comm = CountingComm(pg._comm)
    node = vddp._node  # shared-memory buckets: their barriers go through the node's communicator
    if node is not None:
        node_counting = node.comm = CountingComm(node.comm)
    try:
        F.cross_entropy(vddp(xs), ys).backward()
    finally:
        pg._comm = counting.comm
        if node is not None:
            node.comm = node_counting.comm
    copies = [i for e, i, _ in vddp._timeline if e.startswith("copy")]
    if s == 0:
        assert len(copies) == len(vddp._params), vddp._timeline  # the first backward makes .grad: copied once
    else:
        assert copies == [], vddp._timeline
    if node is None:
        assert counting.calls == ["Iallreduce"] * len(vddp.bucket_sizes()), counting.calls
    else:  # three barriers per bucket, no MPI copy of any gradient (NOTE [ Reducing buckets in shared memory ])
        assert counting.calls == [] and node_counting.calls == ["Ibarrier"] * (3 * len(vddp.bucket_sizes())), (
            counting.calls, node_counting.calls)
        assert all(b.parts is not None for b in vddp._buckets)
    for b in vddp._buckets:
        for k, (_, p) in enumerate(b.params):
            assert p.grad is b.views[k] and np.shares_memory(p.grad.numpy(), b.buf), (s, k)
    vopt.step()
    vropt.zero_grad()
    F.cross_entropy(vref(torch.tensor(X[s])), torch.tensor(Y[s])).backward()
    vropt.step()
    same_everywhere(f"bucket views step {s}", vmodel)
ok("gradient_as_bucket_view == single process on the concatenated batch", flat(vmodel), flat(vref))
print(f"rank {r} OK gradient_as_bucket_view: no copy after the first backward, one reduction per bucket "
      f"({'Iallreduce' if node is None else 'shared memory'})",
      flush=True)

# 6. bucket views under no_sync: local accumulation in the bucket, then the mean over all micro-batches
vopt.zero_grad(set_to_none=False)
vref.load_state_dict(vmodel.state_dict())
vref.zero_grad()
with vddp.no_sync():
    F.cross_entropy(vddp(torch.tensor(X[0, r * B:(r + 1) * B])), torch.tensor(Y[0, r * B:(r + 1) * B])).backward()
F.cross_entropy(vddp(torch.tensor(X[1, r * B:(r + 1) * B])), torch.tensor(Y[1, r * B:(r + 1) * B])).backward()
for s in range(2):
    F.cross_entropy(vref(torch.tensor(X[s])), torch.tensor(Y[s])).backward()
ok("gradient_as_bucket_view no_sync accumulation",
   np.concatenate([p.grad.numpy().ravel() for p in vmodel.parameters()]),
   np.concatenate([p.grad.numpy().ravel() for p in vref.parameters()]))

# 7. buffers are broadcast from rank 0 at every forward, one Ibcast per dtype (not one per buffer)
bn = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 4), nn.BatchNorm1d(4)).double()
bddp = DDP(bn)
for name, buf in bn.named_buffers():
    buf.copy_(torch.full(buf.shape, 10 * r + 1, dtype=buf.dtype))
bddp.eval()  # eval: the forward does not update the statistics it just received
counting = pg._comm = CountingComm(pg._comm)
try:
    with torch.no_grad():
        bddp(torch.tensor(X[0, :B]))
finally:
    pg._comm = counting.comm
assert counting.calls == ["Ibcast", "Ibcast"], counting.calls  # float64 statistics, int64 num_batches_tracked
for name, buf in bn.named_buffers():
    ok(f"buffer {name} is rank 0's", buf.numpy(), np.full(buf.shape, 1, dtype=buf.numpy().dtype), tol=0)
print(f"rank {r} OK buffers: rank 0's after forward, one Ibcast per dtype", flush=True)

dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)
sys.exit(0)

"""DDP's join() with a different number of batches on every rank (rank r has 2 + r) against one
process replaying PyTorch's semantics: at each step the ranks still training contribute their
gradients, joined ranks zeros, and the sum is divided by the world size (or, with
divide_by_initial_world_size=False, by the number of ranks still training). Prints OK lines."""

import copy
import datetime

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
import ember.nn as nn
import ember.optim as optim
from ember.distributed import DistributedDataParallel as DDP
from ember.distributed import comm_hooks
from ember.distributed.join import Join

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
batches = [2 + k for k in range(n)]   # rank k trains on batches[k] batches
data = np.random.default_rng(0)
X = data.standard_normal((n, max(batches), 4, 5))
Y = data.standard_normal((n, max(batches), 4, 2))


def ok(name, got, want, tol=1e-10):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


def net():
    return nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 2)).double()


def state(m):
    return np.concatenate([t.detach().numpy().ravel() for t in list(m.parameters()) + list(m.buffers())
                           if t.dtype != torch.int64])


def everywhere_equal(name, m):
    mine = torch.tensor(state(m))
    every = [torch.zeros_like(mine) for _ in range(n)]
    dist.all_gather(every, mine)
    for k in range(n):
        np.testing.assert_array_equal(every[k].numpy(), mine.numpy(), err_msg=f"rank {r}: {name}: rank {k} differs")


def loss_of(m, k, s):
    return ((m(torch.tensor(X[k, s])) - torch.tensor(Y[k, s])) ** 2).mean()


def reference(model, divide_by_world):
    """One process: at step s, average over the ranks that still have a batch (zeros for the others)."""
    ref = copy.deepcopy(model)
    replicas = [copy.deepcopy(model) for _ in range(n)]   # each rank's module (its BatchNorm statistics)
    opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for s in range(max(batches)):
        active = [k for k in range(n) if s < batches[k]]
        total = [np.zeros(p.shape) for p in ref.parameters()]
        for k in active:
            # the shared parameters; buffers from the highest-ranked rank still training (the last)
            replicas[k].load_state_dict({**ref.state_dict(), **dict(replicas[n - 1].named_buffers())})
            replicas[k].zero_grad()
            loss_of(replicas[k], k, s).backward()
            for t, p in zip(total, replicas[k].parameters()):
                t += p.grad.numpy()
        opt.zero_grad()
        for p, t in zip(ref.parameters(), total):
            p.grad = torch.tensor(t / (n if divide_by_world else len(active)))
        opt.step()
    ref.load_state_dict({**ref.state_dict(), **dict(replicas[n - 1].named_buffers())})
    return ref


def train(ddp, model, **join_kw):
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with ddp.join(**join_kw):
        for s in range(batches[r]):
            opt.zero_grad()
            loss_of(ddp, r, s).backward()
            opt.step()


# 1. divide by the world size (PyTorch's default), plain all-reduce and through a comm hook
for label, hook in [("join()", None), ("join() with allreduce_hook", comm_hooks.allreduce_hook)]:
    torch.manual_seed(r)   # different weights on every rank: DDP broadcasts rank 0's
    model = net()
    ddp = DDP(model, bucket_cap_mb=0.0001)
    assert len(ddp.bucket_sizes()) > 1
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    want = reference(model, divide_by_world=True)
    train(ddp, model)
    everywhere_equal(label, model)
    ok(f"{label}: the ranks still training average over the world size", state(model), state(want))

# 2. divide by the number of ranks still training, and find_unused_parameters
torch.manual_seed(r)
model = net()
ddp = DDP(model, find_unused_parameters=True)
want = reference(model, divide_by_world=False)
train(ddp, model, divide_by_initial_world_size=False)
everywhere_equal("divide_by_initial_world_size=False", model)
ok("join(divide_by_initial_world_size=False) averages over the ranks still training", state(model), state(want))

# 3. PowerSGD under join: the joined ranks run the hook on zero buckets, so every rank agrees on its phase
from ember.distributed.powersgd import PowerSGDState, powerSGD_hook  # noqa: E402

model = net()
ddp = DDP(model)
st = PowerSGDState(None, start_powerSGD_iter=2)
ddp.register_comm_hook(st, powerSGD_hook)
train(ddp, model)
everywhere_equal("join() with powerSGD_hook", model)
assert st.iter == max(batches) and st.compression_stats()[0] > 1, (st.iter, st.compression_stats())
print(f"rank {r} OK join() with powerSGD_hook: every rank counted {st.iter} iterations", flush=True)

# 4. gradient accumulation with no_sync on the ranks still training: the joined ranks skip the backward's
#    all-reduces of those iterations (the sync flag is 0), so nothing hangs and the models end equal
model = net()
ddp = DDP(model)
opt = optim.SGD(model.parameters(), lr=0.1)
with ddp.join():
    for s in range(batches[r]):
        if s % 2 == 0:
            with ddp.no_sync():
                loss_of(ddp, r, s).backward()
        else:
            loss_of(ddp, r, s).backward()
            opt.step()
            opt.zero_grad()
everywhere_equal("join() with no_sync", model)
print(f"rank {r} OK join() with no_sync iterations", flush=True)

# 5. throw_on_early_termination: every rank raises once rank 0 runs out
model = net()
ddp = DDP(model)
try:
    train(ddp, model, throw_on_early_termination=True)
except RuntimeError as e:
    want = "Rank 0 exhausted all inputs." if r == 0 else "Detected at least one rank that exhausted inputs"
    assert want in str(e), e
    print(f"rank {r} OK throw_on_early_termination raises: {e}", flush=True)
else:
    raise AssertionError("no error with throw_on_early_termination")

# 6. Join: equal inputs join at once; errors of the context manager
with Join([DDP(net())]):
    pass
print(f"rank {r} OK a join without iterations ends at once", flush=True)
try:
    Join([])
except ValueError as e:
    assert "requires at least one joinable" in str(e)
    print(f"rank {r} OK Join([]) raises ValueError", flush=True)

dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)

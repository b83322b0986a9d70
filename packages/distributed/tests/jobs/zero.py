"""ZeroRedundancyOptimizer under DDP on the ranks of this job against one process's Adam on the whole batch:
the same parameters after every step, each rank holding only its share's state, a scheduler's rates reaching
every share, and the consolidated state dict equal to the single optimizer's; prints one OK line per check."""

import datetime

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
from ember import nn, optim
from ember.distributed.optim import ZeroRedundancyOptimizer

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()


def ok(name, cond):
    assert cond, f"rank {r}: {name}"
    print(f"rank {r} OK {name}", flush=True)


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def close(a, b):
    return all(np.allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-6) for x, y in zip(a, b))


ref, mine = model(), model()
ref_opt = optim.Adam(ref.parameters(), lr=0.05)
ref_sched = optim.lr_scheduler.StepLR(ref_opt, step_size=2, gamma=0.5)
ddp = dist.DistributedDataParallel(mine)
zero = ZeroRedundancyOptimizer(ddp.parameters(), optim.Adam, lr=0.05)
sched = optim.lr_scheduler.StepLR(zero, step_size=2, gamma=0.5)
ok("global groups carry the class's defaults", zero.param_groups[0]["betas"] == (0.9, 0.999))

params = list(mine.parameters())
owners = [zero._param_to_rank[p] for p in params]  # largest first, each to the emptiest rank
want = {2: [0, 1, 1, 0], 3: [0, 2, 1, 2]}.get(n)
ok("parameters shared out as PyTorch's", want is None or owners == want)

rng = np.random.default_rng(0)
for step in range(5):
    x = torch.tensor(rng.standard_normal((4 * n, 4)).astype(np.float32))
    y = torch.tensor(rng.standard_normal((4 * n, 3)).astype(np.float32))
    ref_opt.zero_grad()
    ((ref(x) - y) ** 2).mean().backward()
    ref_opt.step()
    ref_sched.step()
    zero.zero_grad()
    ((ddp(x[4 * r:4 * r + 4]) - y[4 * r:4 * r + 4]) ** 2).mean().backward()
    zero.step()
    sched.step()
    ok(f"step {step}: parameters equal one process's Adam", close(ref.parameters(), params))

ok("the local state holds this rank's share only",
   {id(p) for p in zero.optim.state} == {id(p) for p, o in zip(params, owners) if o == r})
ok("the scheduler's rate reached the local optimizer",
   zero.optim.param_groups[0]["lr"] == ref_opt.param_groups[0]["lr"])

try:
    zero.state_dict()
    ok("state_dict before consolidation refused", False)
except RuntimeError as e:
    ok("state_dict before consolidation refused", str(e).startswith(
        f"Optimizer state has not been consolidated on this rank. Please call `consolidate_state_dict(to={r})`"))
zero.consolidate_state_dict(to=0)
sd = zero.state_dict() if r == 0 else None
if r == 0:
    want_sd = ref_opt.state_dict()
    ok("consolidated indices", sorted(sd["state"]) == sorted(want_sd["state"]))
    ok("consolidated state", all(close([sd["state"][i]["exp_avg"], sd["state"][i]["exp_avg_sq"]],
                                       [want_sd["state"][i]["exp_avg"], want_sd["state"][i]["exp_avg_sq"]])
                                 for i in want_sd["state"]))
    ok("consolidated groups", sd["param_groups"][0]["params"] == [0, 1, 2, 3]
       and sd["param_groups"][0]["lr"] == want_sd["param_groups"][0]["lr"])
holder = [sd]
dist.broadcast_object_list(holder, src=0)
fresh = ZeroRedundancyOptimizer(ddp.parameters(), optim.Adam, lr=1.0)
fresh.load_state_dict(holder[0])
ok("a loaded state resumes with the saved rate", fresh.optim.param_groups[0]["lr"] == ref_opt.param_groups[0]["lr"])
x = torch.tensor(rng.standard_normal((4 * n, 4)).astype(np.float32))
ref_opt.zero_grad()
ref(x).sum().backward()
ref_opt.step()
fresh.zero_grad()
ddp(x[4 * r:4 * r + 4]).sum().backward()
for p in params:  # DDP averages; the reference summed over the whole batch
    p.grad.mul_(n)
fresh.step()
ok("a loaded state steps as the saved optimizer", close(ref.parameters(), params))


def refused(name, make, kind, message):
    try:
        make()
    except kind as e:
        ok(name, str(e).startswith(message))
    else:
        ok(name, False)


w = nn.Parameter(torch.ones(2))
refused("a tensor for params", lambda: ZeroRedundancyOptimizer(w, optim.SGD, lr=0.1), TypeError,
        "`params` argument should be an iterable of Tensors, but got torch.FloatTensor")
refused("no params", lambda: ZeroRedundancyOptimizer(iter([]), optim.SGD, lr=0.1), ValueError,
        "ZeroRedundancyOptimizer got an empty parameter list")
refused("tensors and dicts", lambda: ZeroRedundancyOptimizer([w, {"params": [w]}], optim.SGD, lr=0.1), TypeError,
        "`params` argument should be an iterable of Tensors or dicts")
refused("two dtypes", lambda: ZeroRedundancyOptimizer([w, nn.Parameter(torch.ones(2, dtype=torch.float64))],
                                                      optim.SGD, lr=0.1), ValueError,
        "ZeroRedundancyOptimizer only supports using the same dense type for all parameters but got both "
        "torch.FloatTensor and torch.DoubleTensor")
refused("overlap with DDP", lambda: ZeroRedundancyOptimizer([w], optim.SGD, lr=0.1, overlap_with_ddp=True),
        NotImplementedError, "ZeroRedundancyOptimizer(overlap_with_ddp=True) is not provided by ember")
dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)

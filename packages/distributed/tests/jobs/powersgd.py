"""PowerSGD hooks on this job's ranks against a numpy float64 reference of the algorithm, and
training convergence; prints OK lines."""

import copy
import datetime
import math

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
import ember.nn as nn
import ember.optim as optim
from ember.distributed import DistributedDataParallel as DDP
from ember.distributed import comm_hooks
from ember.distributed.powersgd import PowerSGDState, batched_powerSGD_hook, powerSGD_hook

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()


def ok(name, got, want, tol=1e-10):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


def orth(a):
    """Orthonormal columns spanning a's (numpy's QR; the approximation P Qᵀ does not depend on signs)."""
    return np.linalg.qr(a)[0]


class Reference:
    """PowerSGD in float64 over every rank's local gradients: P = M Q, sum, orthogonalize,
    Q = Mᵀ P, sum, M ≈ P Qᵀ / world, with per-rank error feedback and warm start."""

    def __init__(self, st_kw, batched=False):
        self.rank = st_kw.get("matrix_approximation_rank", 1)
        self.rate = st_kw.get("min_compression_rate", 2)
        self.start = st_kw["start_powerSGD_iter"]
        self.feedback = st_kw.get("use_error_feedback", True)
        self.warm = st_kw.get("warm_start", True)
        self.rng = np.random.RandomState(st_kw.get("random_seed", 0))
        self.batched = batched
        self.it = 0
        self.err = [0.0] * n
        self.q = None

    def step(self, grads):
        """grads[k]: rank k's gradients in bucket order; returns what every rank should hold."""
        self.it += 1
        if self.it <= self.start:
            return [np.mean([g[i] for g in grads], 0) for i in range(len(grads[0]))]
        shapes = [g.shape for g in grads[0]]
        flat = [np.concatenate([a.ravel() for a in g]) for g in grads]
        if self.batched:   # the bucket padded with zeros to a square; the padding carries error too
            side = math.ceil(math.sqrt(flat[0].size))
            flat = [np.concatenate([f, np.zeros(side * side - f.size)]) for f in flat]
        flat = [f + e for f, e in zip(flat, self.err)]
        if self.batched:
            out = self._batched(flat)
        else:
            out = self._per_matrix(flat, shapes)
        if self.feedback:
            self.err = [f - out for f in flat]
        pieces, pos = [], 0
        for s in shapes:
            pieces.append(out[pos:pos + math.prod(s)].reshape(s))
            pos += math.prod(s)
        return pieces

    def _power(self, mats, q):
        p = orth(sum(m @ q for m in mats))
        q = sum(m.T @ p for m in mats) / n
        return p @ q.T, q

    def _per_matrix(self, flat, shapes):
        out = np.zeros_like(flat[0])
        offsets = np.cumsum([0] + [math.prod(s) for s in shapes])
        comp = []
        for j, s in enumerate(shapes):
            rows, cols = s[0], math.prod(s[1:])
            rk = min(rows, cols, self.rank)
            if len(s) >= 2 and (rows + cols) * rk * self.rate < rows * cols:
                comp.append((j, rows, cols, rk))
            else:
                sl = slice(offsets[j], offsets[j + 1])
                out[sl] = np.mean([f[sl] for f in flat], 0)
        # the initial Qs are drawn matrix by matrix, grouped by shape in order of first appearance
        order = sorted(comp, key=lambda c: [(x[1], x[2]) for x in comp].index((c[1], c[2])))
        if self.q is None or not self.warm:
            gen = np.random.RandomState(self.rng.randint(1_000_000_000))
            self.q = {j: gen.standard_normal((cols, rk)) for j, rows, cols, rk in order}
        for j, rows, cols, rk in comp:
            sl = slice(offsets[j], offsets[j + 1])
            approx, self.q[j] = self._power([f[sl].reshape(rows, cols) for f in flat], orth(self.q[j]))
            out[sl] = approx.ravel()
        return out

    def _batched(self, flat):
        side = math.isqrt(flat[0].size)
        if self.q is None or not self.warm:
            gen = np.random.RandomState(self.rng.randint(1_000_000_000))
            self.q = gen.standard_normal((side, self.rank))
        approx, self.q = self._power([f.reshape(side, side) for f in flat], orth(self.q))
        return approx.ravel()


def local_grads(model, x, y):
    """Each rank's own gradient, in DDP's bucket order (reverse registration)."""
    model.zero_grad()
    ((model(x) - y) ** 2).sum().backward()
    return [p.grad.numpy().copy() for p in reversed(list(model.parameters()))]


def run_case(name, make, st_kw, hook=powerSGD_hook, steps=5):
    torch.manual_seed(7 + r)   # different weights per rank: DDP broadcasts rank 0's
    model = make().double()
    ddp = DDP(model)
    assert len(ddp.bucket_sizes()) == 1, ddp.bucket_sizes()
    replica = copy.deepcopy(model)
    st = PowerSGDState(None, **st_kw)
    ddp.register_comm_hook(st, hook)
    ref = Reference(st_kw, batched=hook is batched_powerSGD_hook)
    data = np.random.default_rng(3)
    fan_in = next(model.parameters()).shape[1]
    fan_out = list(model.parameters())[-1].shape[0]
    for s in range(steps):
        xs = data.standard_normal((n, 4, fan_in))
        ys = data.standard_normal((n, 4, fan_out))
        want = ref.step([local_grads(replica, torch.tensor(xs[k]), torch.tensor(ys[k])) for k in range(n)])
        model.zero_grad()
        ((ddp(torch.tensor(xs[r])) - torch.tensor(ys[r])) ** 2).sum().backward()
        got = [p.grad.numpy() for p in reversed(list(model.parameters()))]
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9, err_msg=f"rank {r}: {name} step {s} grad {k}")
    assert st.iter == steps, st.iter
    print(f"rank {r} OK {name}", flush=True)
    return st


def mlp(a, b, c):
    return lambda: nn.Sequential(nn.Linear(a, b), nn.Tanh(), nn.Linear(b, c))


# 1. against the reference: Gram-Schmidt (rank 1), QR (rank 3), no feedback and cold starts, batching, batched hook
st = run_case("powerSGD rank 1, error feedback, warm start", mlp(6, 5, 4), dict(start_powerSGD_iter=2))
rate, before, after = st.compression_stats()
assert (before, after) == (3 * (4 + 20 + 5 + 30), 3 * (4 + 9 + 5 + 11)), (before, after)
run_case("powerSGD rank 3 (QR), min_compression_rate 1", mlp(16, 12, 10),
         dict(start_powerSGD_iter=2, matrix_approximation_rank=3, min_compression_rate=1))
run_case("powerSGD without error feedback or warm start", mlp(6, 5, 4),
         dict(start_powerSGD_iter=1, use_error_feedback=False, warm_start=False, random_seed=5))
run_case("powerSGD batching same-shape matrices", mlp(8, 8, 8),
         dict(start_powerSGD_iter=2, batch_tensors_with_same_shape=True))
run_case("batched_powerSGD_hook rank 2", mlp(6, 5, 4), dict(start_powerSGD_iter=2, matrix_approximation_rank=2),
         hook=batched_powerSGD_hook)

# 2. a rank-1 average gradient is reproduced exactly by a rank-1 approximation
model = nn.Linear(6, 5, bias=False).double()
ddp = DDP(model)
ddp.register_comm_hook(PowerSGDState(None, start_powerSGD_iter=2), powerSGD_hook)
x = torch.tensor(np.linspace(-1, 1, 6)[None])
c = torch.tensor(np.arange(1.0, 6.0)[None])
for _ in range(3):
    model.zero_grad()
    ((r + 1) * (ddp(x) * c).sum()).backward()
ok("a rank-1 mean gradient passes exactly", model.weight.grad.numpy(),
   np.mean(np.arange(1, n + 1)) * np.outer(c.numpy(), x.numpy()))

# 3. training: a linear teacher recovered under PowerSGD rank 1 as well as under plain all-reduce
rng = np.random.default_rng(11)
W = rng.standard_normal((4, 12))   # rank 4: a rank-1 PowerSGD must lean on error feedback
losses = {}
for label, hook in [("allreduce", None), ("powerSGD", powerSGD_hook)]:
    torch.manual_seed(0)
    model = nn.Linear(12, 4, bias=False).double()
    ddp = DDP(model)
    if hook is not None:
        ddp.register_comm_hook(PowerSGDState(None, start_powerSGD_iter=2), hook)
    opt = optim.SGD(ddp.parameters(), lr=0.05, momentum=0.5)
    data = np.random.default_rng(1 + r)
    for s in range(150):
        xb = data.standard_normal((8, 12))
        opt.zero_grad()
        loss = ((ddp(torch.tensor(xb)) - torch.tensor(xb @ W.T)) ** 2).mean()
        loss.backward()
        opt.step()
    xt = np.random.default_rng(99).standard_normal((64, 12))
    losses[label] = float(((xt @ model.weight.detach().numpy().T - xt @ W.T) ** 2).mean())
    mine = torch.tensor(model.weight.detach().numpy().ravel())
    every = [torch.zeros_like(mine) for _ in range(n)]
    dist.all_gather(every, mine)
    for k in range(n):
        np.testing.assert_array_equal(every[k].numpy(), every[0].numpy())
initial = float(((np.random.default_rng(99).standard_normal((64, 12)) @ W.T) ** 2).mean())
assert losses["powerSGD"] < 1e-3 * initial and losses["allreduce"] < 1e-3 * initial, (losses, initial)
print(f"rank {r} OK powerSGD training converges: test loss {losses['powerSGD']:.2e} (all-reduce "
      f"{losses['allreduce']:.2e}, start {initial:.2e}); parameters equal on every rank", flush=True)

# 4. overlap: a compressing bucket's Q all-reduce is issued at the next bucket's hook call and the
# bucket finishes when waited on, with the values of one bucket at a time
def buckets(seed):
    g = np.random.default_rng(seed + r)
    return [comm_hooks.GradBucket(k, torch.tensor(g.standard_normal(30)), [torch.zeros(6, 5)], [0], k == 1)
            for k in range(2)]


for hook in (powerSGD_hook, batched_powerSGD_hook):
    piped, serial = PowerSGDState(None, start_powerSGD_iter=2), PowerSGDState(None, start_powerSGD_iter=2)
    piped.iter = serial.iter = 2
    b0, b1 = buckets(5)
    f0 = hook(piped, b0)
    assert not f0.done() and len(piped.pipeline) == 1 and piped.pipeline[0].more
    f1 = hook(piped, b1)
    assert len(piped.pipeline) == 2 and not piped.pipeline[0].more and piped.pipeline[1].more
    got1 = f1.wait().numpy().copy()
    assert f0.done() and not piped.pipeline
    got0 = f0.wait().numpy().copy()
    s0, s1 = buckets(5)
    want0 = hook(serial, s0).wait().numpy()
    want1 = hook(serial, s1).wait().numpy()
    np.testing.assert_array_equal(got0, want0)
    np.testing.assert_array_equal(got1, want1)
    print(f"rank {r} OK {hook.__name__} pipelines buckets", flush=True)

dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)

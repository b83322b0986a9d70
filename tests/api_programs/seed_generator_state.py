"""Explicit generators and RNG-state bookkeeping as reproducibility utilities write them: torch.Generator with
manual_seed/get_state/set_state/initial_seed, generator= on every sampler, global get_rng_state/set_rng_state
round trips, torch.random.fork_rng, torch.seed/initial_seed, cloned generators, and a resumable sampler."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler

torch.set_printoptions(precision=4, sci_mode=False)

g = torch.Generator()
print("generator", g.device, type(g).__name__)
print("manual_seed returns self", g.manual_seed(2147483647) is g, g.initial_seed())
a = torch.randn(3, generator=g)
state = g.get_state()
print("state", state.dtype, tuple(state.shape))
b = torch.rand(2, 2, generator=g)
g.set_state(state)
b2 = torch.rand(2, 2, generator=g)
print("set_state replays", torch.equal(b, b2), a)
print("randint", torch.randint(0, 100, (6,), generator=g).tolist())
print("randperm", torch.randperm(8, generator=g).tolist())
print("normal", torch.normal(0.0, 1.0, size=(3,), generator=g))
print("normal tensors", torch.normal(torch.zeros(3), torch.ones(3) * 2, generator=g))
print("bernoulli", torch.bernoulli(torch.full((6,), 0.5), generator=g).tolist())
print("multinomial", torch.multinomial(torch.tensor([1.0, 2.0, 3.0]), 4, True, generator=g).tolist())
print("uniform_", torch.empty(3).uniform_(0, 5, generator=g))
print("normal_", torch.empty(3, dtype=torch.float64).normal_(1.0, 0.1, generator=g))
print("exponential_", torch.empty(3).exponential_(1.5, generator=g))
print("random_", torch.empty(4, dtype=torch.int64).random_(0, 9, generator=g).tolist())
print("rand f64", torch.rand(3, dtype=torch.float64, generator=g))

g1 = torch.Generator().manual_seed(5)
g2 = torch.Generator().manual_seed(5)
x1 = torch.randn(4, generator=g1)
torch.randn(100)
x2 = torch.randn(4, generator=g2)
print("independent of global", torch.equal(x1, x2))
g3 = torch.Generator()
g3.set_state(g1.get_state())
print("copied state", torch.equal(torch.rand(3, generator=g1), torch.rand(3, generator=g3)))
print("clone_state", g1.clone_state().initial_seed() if hasattr(g1, "clone_state") else g1.initial_seed())

torch.manual_seed(77)
print("initial_seed", torch.initial_seed())
s = torch.get_rng_state()
print("global state", s.dtype, s.shape, s[:8].tolist())
u = torch.rand(4)
torch.set_rng_state(s)
print("round trip", torch.equal(u, torch.rand(4)), u)
saved = torch.random.get_rng_state()
with torch.random.fork_rng():
    torch.manual_seed(1)
    inner = torch.randn(2)
after = torch.randn(2)
torch.random.set_rng_state(saved)
print("fork_rng isolates", torch.equal(after, torch.randn(2)), inner)
with torch.random.fork_rng(enabled=False):
    torch.randn(1)
print("fork_rng disabled advances", not torch.equal(torch.get_rng_state(), saved))
gs = torch.random.manual_seed(8)
print("random.manual_seed returns", type(gs).__name__, gs.initial_seed(), torch.random.initial_seed())
print("default_generator", torch.default_generator.initial_seed())
new_seed = torch.seed()
print("seed() reseeds", new_seed == torch.initial_seed(), isinstance(new_seed, int))
torch.manual_seed(8)
print("after reseed", torch.rand(2))

big = torch.Generator().manual_seed(2 ** 32 + 3)
print("state 2**32+3", big.initial_seed(), torch.rand(1, generator=big))
print("negative seed", torch.Generator().manual_seed(-1).initial_seed())


def snapshot():
    return {"torch": torch.get_rng_state()}


def restore(s):
    torch.set_rng_state(s["torch"])


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X, Y = torch.randn(32, 4), torch.randn(32, 1)
losses = []
ckpt = None
for step in range(6):
    if step == 3:
        ckpt = {"model": {k: v.clone() for k, v in model.state_dict().items()},
                "opt": opt.state_dict(), "rng": snapshot()}
    idx = torch.randint(0, 32, (8,))
    loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 4))
print("run", losses)
model.load_state_dict(ckpt["model"])
opt.load_state_dict(ckpt["opt"])
restore(ckpt["rng"])
resumed = []
for step in range(3, 6):
    idx = torch.randint(0, 32, (8,))
    loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    resumed.append(round(loss.item(), 4))
print("resumed", resumed, "match", resumed == losses[3:])

sg = torch.Generator().manual_seed(11)
sampler = RandomSampler(range(10), generator=sg)
st = sg.get_state()
e1 = list(sampler)
sg.set_state(st)
print("sampler replay", e1, list(sampler) == e1)
lg = torch.Generator().manual_seed(4)
dl = DataLoader(list(range(10)), batch_size=4, shuffle=True, generator=lg)
print("loader epochs", [b.tolist() for b in dl], [b.tolist() for b in dl][0])

"""Randomness shared between numpy and torch in reproducibility code: seeding both from one numpy-drawn seed
(np.int64/np.uint32 seeds into manual_seed and Generator), torch draws with numpy bounds and sizes, sampling
with probabilities that live in numpy (torch.multinomial on from_numpy float64, np.random.choice on
.numpy()), RNG states saved as numpy arrays and restored, a seed_worker in PyTorch's recipe, numpy
permutations vs torch.randperm for splits, and Bernoulli masks applied to numpy data."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.set_printoptions(precision=4)


def attempt(name, fn):
    try:
        r = fn()
        print(f"{name:<26} {r.tolist() if isinstance(r, torch.Tensor | np.ndarray) else r}")
    except Exception as e:
        print(f"{name:<26} {type(e).__name__}: {str(e).splitlines()[0][:100]}")


master = np.random.default_rng(2024)
seed = master.integers(0, 2**31 - 1)
print("seed", type(seed).__name__, int(seed))
torch.manual_seed(seed)
random.seed(int(seed))
np.random.seed(int(seed) % 2**32)
print("initial_seed", torch.initial_seed(), type(torch.initial_seed()).__name__)
attempt("randn after np seed", lambda: torch.randn(3).round(decimals=4))
attempt("manual_seed(np.uint32)", lambda: torch.manual_seed(np.uint32(7)).initial_seed())
attempt("Generator np.int64", lambda: torch.Generator().manual_seed(np.int64(11)).initial_seed())
attempt("manual_seed(np.float64)", lambda: torch.manual_seed(np.float64(3.0)).initial_seed())
attempt("manual_seed(-1)", lambda: torch.manual_seed(-1).initial_seed())
attempt("manual_seed(str)", lambda: torch.manual_seed("3").initial_seed())
for s in [np.uint32(3), True, 3.0, np.float64(2.0), 2**64, "3"]:
    attempt(f"Generator seed {type(s).__name__} {s}", lambda: torch.Generator().manual_seed(s).initial_seed())

print("-- draws with numpy arguments")
torch.manual_seed(0)
n, k = np.int64(10), np.int32(3)
attempt("randint np bounds", lambda: torch.randint(np.int64(0), n, (k,)))
attempt("randint size np", lambda: torch.randint(0, 5, size=(np.int64(2), np.int64(2))))
attempt("randperm(np.int64)", lambda: torch.randperm(n))
attempt("rand(np ints)", lambda: torch.rand(np.int32(2), np.int64(2)).round(decimals=4))
attempt("normal np mean/std", lambda: torch.normal(np.float32(0.0), np.float64(2.0), size=(3,)).round(decimals=4))
attempt("uniform_ np bounds", lambda: torch.empty(3).uniform_(np.float32(-1), np.float64(1)).round(decimals=4))
attempt("bernoulli p=np", lambda: torch.bernoulli(torch.full((5,), np.float32(0.5))))
attempt("randint_like", lambda: torch.randint_like(torch.zeros(4), np.int64(7)))

print("-- sampling with numpy probabilities")
torch.manual_seed(1)
p_np = np.array([0.1, 0.2, 0.3, 0.4])
probs = torch.from_numpy(p_np)
draws = torch.multinomial(probs, 2000, replacement=True)
freq = np.bincount(draws.numpy(), minlength=4) / 2000
print("multinomial float64", draws.dtype, np.round(freq, 2).tolist(), draws[:10].tolist())
attempt("no replacement", lambda: torch.multinomial(probs, 4))
attempt("too many w/o repl", lambda: torch.multinomial(probs, 5))
attempt("negative prob", lambda: torch.multinomial(torch.from_numpy(np.array([0.5, -0.1])), 1))
logits = torch.tensor([2.0, 1.0, 0.1])
p_soft = torch.softmax(logits, 0)
rs = np.random.RandomState(0)
choice = rs.choice(3, size=8, p=p_soft.numpy().astype(np.float64) / p_soft.numpy().sum(dtype=np.float64))
print("np.random.choice with torch probs", choice.tolist())
attempt("choice float32 p", lambda: np.random.RandomState(0).choice(3, size=2, p=p_soft.numpy()))
cat = torch.distributions.Categorical(probs=torch.from_numpy(np.array([0.25, 0.75])))
torch.manual_seed(2)
attempt("Categorical(np probs)", lambda: cat.sample((6,)))
print("Categorical dtypes", cat.probs.dtype, cat.logits.dtype, cat.entropy().item().__round__(4))

print("-- RNG state as numpy")
torch.manual_seed(3)
state = torch.get_rng_state()
state_np = state.numpy().copy()
print("state", state.dtype, state.shape, type(state_np).__name__, state_np.dtype)
a = torch.rand(3)
torch.set_rng_state(torch.from_numpy(state_np))
b = torch.rand(3)
print("restored from numpy", torch.equal(a, b), a.round(decimals=4).tolist())
attempt("set_rng_state(ndarray)", lambda: torch.set_rng_state(state_np))
attempt("set_rng_state int64", lambda: torch.set_rng_state(torch.from_numpy(state_np.astype(np.int64))))
np_state = np.random.get_state()
x1 = np.random.rand(2)
np.random.set_state(np_state)
x2 = np.random.rand(2)
print("numpy state restore", np.array_equal(x1, x2))
g = torch.Generator().manual_seed(5)
gs = g.get_state()
first = torch.randn(2, generator=g)
g.set_state(gs)
print("generator state", gs.dtype, tuple(gs.shape), torch.equal(first, torch.randn(2, generator=g)))

print("-- seed_worker and splits")


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


data = TensorDataset(torch.arange(8.0), torch.from_numpy(np.arange(8) % 2))
gen = torch.Generator()
gen.manual_seed(0)
loader = DataLoader(data, batch_size=3, shuffle=True, worker_init_fn=seed_worker, generator=gen)
print("batches", [xb.tolist() for xb, _ in loader])
gen.manual_seed(0)
print("same again", [xb.tolist() for xb, _ in loader][0])
np_perm = np.random.default_rng(0).permutation(8)
t_perm = torch.randperm(8, generator=torch.Generator().manual_seed(0))
print("np permutation", np_perm.tolist(), "torch randperm", t_perm.tolist())
train_idx, val_idx = t_perm[:6].numpy(), t_perm[6:].numpy()
print("index types", type(train_idx).__name__, train_idx.dtype, data[train_idx][0].tolist(), data[val_idx][1].tolist())

print("-- masks drawn in torch, applied in numpy")
torch.manual_seed(4)
img = np.arange(12, dtype=np.float32).reshape(3, 4)
keep = torch.rand(3, 4) > 0.3
masked = np.where(keep.numpy(), img, 0.0)
print("mask", keep.dtype, keep.numpy().dtype, masked.tolist())
drop = torch.nn.functional.dropout(torch.from_numpy(img), p=0.5, training=True)
print("dropout on from_numpy", drop.tolist())
noise = torch.randn(3, 4, dtype=torch.float64).numpy()
print("noisy mean", round(float((img + noise).mean()), 4), (img + noise).dtype)

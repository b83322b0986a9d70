"""An isolation forest written in torch (random feature/threshold splits drawn from seeded torch.Generators,
average path lengths with the harmonic-number correction c(n), scores 2**(-E[h]/c(n))), and the Generator API it
leans on: get_state/set_state, fork_rng, initial_seed, per-call generator= across rand/randint/randperm/multinomial."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def c_factor(n):
    n = torch.as_tensor(n, dtype=torch.float64)
    h = torch.log(n - 1) + 0.5772156649
    return torch.where(n > 2, 2 * h - 2 * (n - 1) / n, torch.where(n == 2, 1.0, 0.0).double())


def build_tree(x, depth, max_depth, g):
    n = x.shape[0]
    if depth >= max_depth or n <= 1:
        return {"size": n}
    f = int(torch.randint(0, x.shape[1], (1,), generator=g))
    lo, hi = x[:, f].min(), x[:, f].max()
    if lo == hi:
        return {"size": n}
    t = lo + (hi - lo) * torch.rand((), generator=g, dtype=x.dtype)
    mask = x[:, f] < t
    return {
        "f": f,
        "t": t,
        "l": build_tree(x[mask], depth + 1, max_depth, g),
        "r": build_tree(x[~mask], depth + 1, max_depth, g),
    }


def path_length(pt, node, depth=0):
    if "f" not in node:
        return depth + float(c_factor(node["size"]))
    return path_length(pt, node["l"] if pt[node["f"]] < node["t"] else node["r"], depth + 1)


class IsolationForest:
    def __init__(self, n_trees=20, sample_size=32, seed=42):
        self.n_trees, self.sample_size = n_trees, sample_size
        self.g = torch.Generator().manual_seed(seed)

    def fit(self, x):
        max_depth = math.ceil(math.log2(self.sample_size))
        self.trees = []
        for _ in range(self.n_trees):
            idx = torch.randperm(x.shape[0], generator=self.g)[: self.sample_size]
            self.trees.append(build_tree(x[idx], 0, max_depth, self.g))
        return self

    def score(self, x):
        h = torch.tensor([[path_length(p, t) for t in self.trees] for p in x], dtype=torch.float64)
        return torch.pow(2.0, -h.mean(1) / c_factor(self.sample_size))


data = torch.randn(100, 2, dtype=torch.float64)
outliers = torch.tensor([[4.0, 4.0], [-5.0, 0.5], [0.0, 0.0]], dtype=torch.float64)
forest = IsolationForest().fit(data)
scores = forest.score(outliers)
print("scores", scores, scores.dtype)
print("c(n)", c_factor(torch.tensor([1, 2, 3, 256])))
print("inlier mean", forest.score(data[:10]).mean().round(decimals=4))

# Generator API
g = torch.Generator()
print(g.initial_seed(), g.device, type(g.get_state()).__name__, g.get_state().dtype, g.get_state().shape)
g.manual_seed(7)
state = g.get_state()
a = torch.rand(3, generator=g)
g.set_state(state)
b = torch.rand(3, generator=g)
print("replay", torch.equal(a, b), a)
print("initial", g.initial_seed(), torch.Generator().manual_seed(3).initial_seed())
print("randint", torch.randint(5, (6,), generator=g), torch.randint(-3, 3, (2, 2), generator=g, dtype=torch.int32))
print(
    "randperm",
    torch.randperm(6, generator=g),
    torch.randperm(0, generator=g),
    torch.randperm(4, dtype=torch.float32, generator=g),
)
print("randn", torch.randn(2, generator=g), torch.randn(2, generator=g, dtype=torch.float64))
print(
    "normal", torch.normal(0.0, 1.0, size=(3,), generator=g), torch.normal(torch.zeros(2), torch.ones(2), generator=g)
)
w = torch.tensor([0.1, 0.0, 0.6, 0.3])
print("multinomial", torch.multinomial(w, 3, generator=g), torch.multinomial(w, 5, replacement=True, generator=g))
print("bernoulli", torch.bernoulli(torch.full((5,), 0.5), generator=g), torch.empty(3).uniform_(2, 3, generator=g))
print(
    "exponential",
    torch.empty(3).exponential_(2.0, generator=g),
    torch.empty(3, dtype=torch.int64).random_(0, 10, generator=g),
)
with torch.random.fork_rng():
    torch.manual_seed(123)
    inner = torch.rand(2)
outer = torch.rand(2)
torch.manual_seed(0)
torch.rand(0)
print("fork", inner, outer)
torch.manual_seed(5)
s1 = torch.get_rng_state()
r1 = torch.rand(2)
torch.set_rng_state(s1)
print("global replay", torch.equal(r1, torch.rand(2)), torch.initial_seed())
for bad in [
    lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1),
    lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 1),
    lambda: torch.multinomial(torch.tensor([1.0, 1.0]), 3),
    lambda: torch.randint(3, 3, (2,)),
    lambda: torch.randperm(-1),
    lambda: g.manual_seed(-1),
    lambda: g.set_state(torch.zeros(3, dtype=torch.uint8)),
    lambda: torch.rand(2, generator=torch.Generator(device="meta")),
]:
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, str(e).split("\n")[0])

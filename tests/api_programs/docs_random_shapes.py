"""Random-sampling docstring examples, printing only what does not depend on the generator: shapes, dtypes,
ranges, reproducibility under a seed, and the errors of typical misuse."""

import torch

g = torch.Generator().manual_seed(0)
print(
    "rand",
    torch.rand(4).shape,
    torch.rand(2, 3).dtype,
    torch.rand((2, 3), dtype=torch.float64).dtype,
    torch.rand(size=(1,)).shape,
)
print("randn", torch.randn(4).shape, torch.randn(2, 3, generator=g).shape, torch.randn(2, dtype=torch.complex64).dtype)
print(
    "randint",
    torch.randint(3, 5, (3,)).dtype,
    torch.randint(10, (2, 2)).shape,
    torch.randint(3, 10, (2, 2), dtype=torch.int8).dtype,
)
ri = torch.randint(3, 5, (100,), generator=g)
print("randint range", ri.min() >= 3, ri.max() <= 4, torch.randint(0, 1, (5,)).sum())
print(
    "randint_like",
    torch.randint_like(torch.ones(2, 2), 5).dtype,
    torch.randint_like(torch.ones(3, dtype=torch.int32), 2, 4).dtype,
)
p = torch.randperm(4)
print("randperm", p.dtype, p.sort().values, torch.randperm(5, dtype=torch.int32).dtype, torch.randperm(0).shape)
print("rand_like", torch.rand_like(torch.ones(2, 3, dtype=torch.float64)).dtype, torch.randn_like(torch.ones(2)).shape)
print(
    "normal overloads",
    torch.normal(2, 3, size=(1, 4)).shape,
    torch.normal(torch.zeros(3), 1.0).shape,
    torch.normal(0.0, torch.ones(2, 2)).shape,
)
print("normal tensors", torch.normal(mean=torch.arange(1.0, 11.0), std=torch.arange(1, 0, -0.1)).shape)
print(
    "bernoulli",
    torch.bernoulli(torch.zeros(3)),
    torch.bernoulli(torch.ones(3)),
    torch.bernoulli(torch.full((2,), 0.5), p=0.0),
)
print("bernoulli_", torch.empty(3).bernoulli_(1.0), torch.empty(2, dtype=torch.int64).bernoulli_(0.0))
w = torch.tensor([0.0, 10.0, 3.0, 0.0])
m = torch.multinomial(w, 2)
print("multinomial", m.dtype, sorted(m.tolist()), torch.multinomial(w, 4, replacement=True).shape)
print("multinomial 2d", torch.multinomial(torch.tensor([[0.0, 1.0], [1.0, 0.0]]), 1))
print("poisson", torch.poisson(torch.zeros(3)), torch.poisson(torch.ones(2, 2) * 4).shape)
print(
    "uniform_",
    torch.empty(1000).uniform_(2, 3).min() >= 2,
    torch.empty(3).normal_(0, 1).shape,
    torch.empty(3).exponential_().min() >= 0,
)
print("random_", torch.empty(100, dtype=torch.int64).random_(0, 4).max() < 4, torch.empty(5).random_(3).max() < 3)
print(
    "geometric log_normal",
    torch.empty(5).geometric_(0.5).min() >= 1,
    torch.empty(3).log_normal_().min() > 0,
    torch.empty(4).cauchy_().shape,
)
torch.manual_seed(7)
a = torch.rand(3)
torch.manual_seed(7)
b = torch.rand(3)
print(
    "reproducible",
    torch.equal(a, b),
    torch.equal(
        torch.rand(3, generator=torch.Generator().manual_seed(1)),
        torch.rand(3, generator=torch.Generator().manual_seed(1)),
    ),
)
st = torch.get_rng_state()
c = torch.randn(2)
torch.set_rng_state(st)
print("rng state", st.dtype, st.dim(), torch.equal(c, torch.randn(2)))
gs = g.get_state()
x1 = torch.rand(2, generator=g)
g.set_state(gs)
print("generator state", torch.equal(x1, torch.rand(2, generator=g)), g.device, torch.Generator(device="cpu").device)
with torch.random.fork_rng():
    torch.manual_seed(123)
    inner = torch.rand(1)
print("fork_rng", inner.shape, torch.initial_seed())
print("seed types", type(torch.seed()).__name__, type(torch.initial_seed()).__name__)
for bad in [
    lambda: torch.randint(5, 3, (2,)),
    lambda: torch.randint(0, 2, 3),
    lambda: torch.randperm(-1),
    lambda: torch.rand(2, dtype=torch.int64),
    lambda: torch.randn(2, dtype=torch.int32),
    lambda: torch.normal(0.0, -1.0, size=(2,)),
    lambda: torch.normal(torch.zeros(2), torch.ones(3)),
    lambda: torch.bernoulli(torch.tensor([1.5])),
    lambda: torch.multinomial(torch.tensor([-1.0, 2.0]), 1),
    lambda: torch.multinomial(torch.zeros(3), 1),
    lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
    lambda: torch.empty(3).uniform_(3, 2),
    lambda: torch.empty(3, dtype=torch.int64).normal_(),
    lambda: torch.poisson(torch.tensor([-1.0])),
    lambda: torch.empty(3).geometric_(1.0),
    lambda: torch.empty(3).bernoulli_(1.25),
    lambda: torch.empty(3).exponential_(-1.0),
    lambda: torch.rand(2, generator=torch.default_generator, device="meta").shape,
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])

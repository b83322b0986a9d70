"""Seeded sampling as the Zero to Hero notebooks do it: Generator(2147483647), multinomial, random_split, RNG states.

Generator get_state/set_state, fork_rng, Categorical sampling next to multinomial, and splits of a names list.
"""

import random

import torch

g = torch.Generator().manual_seed(2147483647)
print(g.initial_seed(), g.device, g.manual_seed(2147483647) is g)
p = torch.rand(3, generator=g)
p = p / p.sum()
print(p, torch.multinomial(p, num_samples=100, replacement=True, generator=g).bincount())
s = g.get_state()
print(s.dtype, s.shape, s[:4])
a = torch.randn(5, generator=g)
g.set_state(s)
b = torch.randn(5, generator=g)
print(torch.equal(a, b), a)
for bad in (
    lambda: g.set_state(torch.zeros(3)),
    lambda: g.manual_seed(1.5),
    lambda: torch.set_rng_state(torch.zeros(10)),
):
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
print(torch.manual_seed(2**63 + 5).initial_seed(), torch.manual_seed(-5).initial_seed(), torch.initial_seed())

torch.manual_seed(1)
st = torch.get_rng_state()
a = torch.randn(3)
torch.set_rng_state(st)
print(torch.equal(a, torch.randn(3)), st.shape)
with torch.random.fork_rng():
    torch.manual_seed(5)
    c = torch.rand(2)
print(c, torch.rand(2))

g2 = torch.Generator().manual_seed(7)
P = torch.rand(3, 6, generator=g2)
print(torch.multinomial(P, 4, generator=g2), torch.multinomial(P, 1, replacement=True, generator=g2).squeeze(1))
print(torch.multinomial(P[0].double(), 6, generator=g2), P.t().contiguous().t().multinomial(2, generator=g2))
print(torch.multinomial(torch.tensor([0.2, 0.8]).expand(3, 2), 1, generator=g2).view(-1))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7], dtype=torch.float16), 4, True, generator=g2))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7], dtype=torch.bfloat16), 4, True, generator=g2))
print(
    torch.multinomial(torch.tensor([0.5, 0.5, 0.0]), 3, generator=g2),
    torch.multinomial(torch.ones(3), 2, out=torch.empty(2, dtype=torch.long), generator=g2),
)
print(torch.rand(3, generator=g2, dtype=torch.float64), torch.rand(3, generator=g2, dtype=torch.float16))
print(torch.randn(3, generator=g2, dtype=torch.bfloat16), torch.randn(2, generator=g2, dtype=torch.complex64))
print(
    torch.randint(0, 256, (4,), generator=g2, dtype=torch.uint8),
    torch.randint(3, (2, 2), generator=g2, dtype=torch.float32),
)
print(torch.randperm(10, generator=g2), torch.randperm(5, generator=g2, dtype=torch.int32), torch.randperm(0))
print(torch.empty(5).uniform_(-1, 1, generator=g2), torch.empty(4, dtype=torch.long).random_(0, 10, generator=g2))
print(torch.empty(5).bernoulli_(0.3, generator=g2), torch.bernoulli(torch.full((5,), 0.5), generator=g2))
print(torch.empty(4).exponential_(generator=g2), torch.normal(torch.zeros(3), 1.0, generator=g2))
print(torch.randint_like(torch.zeros(3), 5, generator=g2), torch.rand_like(torch.zeros(2, dtype=torch.float64)).dtype)
for bad in (
    lambda: torch.rand(3, generator=g2, dtype=torch.long),
    lambda: torch.randint(5, 3, (3,)),
    lambda: torch.randint(0, 300, (4,), generator=g2, dtype=torch.uint8),
    lambda: torch.randn(3, dtype=torch.long),
):
    try:
        print(bad())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)

torch.manual_seed(42)
cat = torch.distributions.Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(cat.sample((8,)), cat.entropy(), cat.log_prob(torch.tensor([0, 2])), cat.probs, cat.logits)
print(
    torch.distributions.Categorical(logits=torch.tensor([[0.1, 0.2, 0.7]])).sample(),
    torch.distributions.Categorical(probs=torch.tensor([2.0, 2.0])).probs,
)
try:
    torch.distributions.Categorical(probs=torch.tensor([-0.1, 1.1]))
except ValueError as e:
    print(type(e).__name__, str(e)[:120])

words = "emma olivia ava isabella sophia charlotte mia amelia harper evelyn".split()
random.seed(42)
random.shuffle(words)
n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
print(words[:3], n1, n2, len(words[:n1]), len(words[n1:n2]), len(words[n2:]))
tr, va = torch.utils.data.random_split(words, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print(len(tr), va.indices, [va[i] for i in range(len(va))])
print(
    [
        len(x)
        for x in torch.utils.data.random_split(
            range(10), [0.33, 0.33, 0.34], generator=torch.Generator().manual_seed(0)
        )
    ]
)
for bad in (
    lambda: torch.utils.data.random_split(range(10), [0.5, 0.6]),
    lambda: torch.utils.data.random_split(range(10), [3, 3]),
):
    try:
        bad()
    except ValueError as e:
        print(type(e).__name__, e)

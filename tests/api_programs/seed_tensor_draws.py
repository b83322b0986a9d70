"""Seeded tensor draws in float32 and float64 as experiment scripts make them: Gaussian and uniform inputs,
integer labels, permutations, in-place samplers on views, Bernoulli masks, multinomial picks, exponential
waiting times; each printed with its summary statistics."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)


def summary(name, t):
    t64 = t.double()
    print(f"{name}: {t.dtype} {tuple(t.shape)} mean={t64.mean().item():.4f} std={t64.std().item():.4f} "
          f"first={[round(v, 4) for v in t.flatten()[:4].tolist()]}")


torch.manual_seed(2024)
for dtype in (torch.float32, torch.float64):
    print("--", dtype)
    summary("randn", torch.randn(1000, dtype=dtype))
    summary("randn_small", torch.randn(3, 5, dtype=dtype))
    summary("rand", torch.rand(257, dtype=dtype))
    summary("normal_", torch.empty(64, 4, dtype=dtype).normal_(mean=2.0, std=0.5))
    summary("uniform_", torch.empty(33, dtype=dtype).uniform_(-1.0, 3.0))
    summary("exponential_", torch.empty(500, dtype=dtype).exponential_(lambd=4.0))
    summary("bernoulli", torch.bernoulli(torch.full((300,), 0.25, dtype=dtype)))
    summary("randn_like", torch.randn_like(torch.zeros(2, 9, dtype=dtype)))
    summary("rand_like", torch.rand_like(torch.zeros(17, dtype=dtype)))
    summary("normal_fn", torch.normal(mean=torch.zeros(6, dtype=dtype), std=torch.linspace(0.1, 2.0, 6, dtype=dtype)))

print("-- integers")
labels = torch.randint(0, 5, (40,))
print("labels", labels.tolist())
print("bincount", torch.bincount(labels, minlength=5).tolist())
print("randint low/high", torch.randint(-3, 4, (2, 6)))
print("randint int8", torch.randint(0, 100, (8,), dtype=torch.int8).tolist())
print("randint_like", torch.randint_like(torch.zeros(5, dtype=torch.int32), 10).tolist())
perm = torch.randperm(12)
print("randperm", perm.tolist(), "sorted ok", torch.equal(perm.sort().values, torch.arange(12)))
print("randperm int32", torch.randperm(7, dtype=torch.int32))
print("randperm big", torch.randperm(1000)[:10].tolist())
print("random_", torch.empty(6, dtype=torch.int64).random_(0, 50).tolist())
print("random_ float", torch.empty(4).random_(10).tolist())

print("-- in-place on views and strided tensors")
buf = torch.zeros(4, 6)
buf[:, ::2].normal_()
print(buf)
buf2 = torch.zeros(3, 4, dtype=torch.float64)
buf2.t()[1:3].uniform_(5, 6)
print(buf2)
col = torch.zeros(5, 3)
col[:, 1].bernoulli_(0.5)
print(col.sum(0))

print("-- multinomial")
probs = torch.tensor([0.1, 0.2, 0.3, 0.4])
draws = torch.multinomial(probs, 2000, replacement=True)
print("freq", (torch.bincount(draws, minlength=4).float() / 2000).tolist())
print("no replacement", torch.multinomial(probs, 4).tolist())
weights = torch.tensor([[1.0, 0.0, 3.0, 6.0], [5.0, 5.0, 0.0, 0.0], [0.2, 0.2, 0.2, 0.4]], dtype=torch.float64)
print("batched", torch.multinomial(weights, 2).tolist())
print("batched repl", torch.multinomial(weights, 5, replacement=True).tolist())

print("-- masks and noise")
x = torch.randn(4, 8)
mask = torch.rand(4, 8) < 0.3
print("masked count", mask.sum().item(), "masked mean", round(x[mask].mean().item(), 4))
noisy = x + 0.1 * torch.randn_like(x)
print("snr", round((x.pow(2).mean() / (noisy - x).pow(2).mean()).item(), 4))
keep = torch.empty(4, 8).bernoulli_(torch.full((4, 8), 0.8))
print("keep rows", keep.sum(1).tolist())
wait = torch.empty(10000, dtype=torch.float64).exponential_(0.5)
print("exp mean", round(wait.mean().item(), 4), "exp var", round(wait.var().item(), 4))
u = torch.rand(10000, dtype=torch.float64)
print("uniform moments", round(u.mean().item(), 4), round(u.var().item(), 4), round(u.min().item(), 4))
g = torch.randn(20000)
print("normal moments", round(g.mean().item(), 4), round(g.std().item(), 4),
      round(((g - g.mean()) ** 3).mean().item(), 4), round((g.abs() > 1.96).float().mean().item(), 4))

"""makemore part 1: a bigram character model from a count table, sampled with torch.multinomial.

Counts in an int32 table, smoothing, keepdim broadcasting pitfalls, seeded Generators, and the NLL.
"""

import warnings

import torch

words = [
    "emma",
    "olivia",
    "ava",
    "isabella",
    "sophia",
    "charlotte",
    "mia",
    "amelia",
    "harper",
    "evelyn",
    "abigail",
    "emily",
    "elizabeth",
    "mila",
    "ella",
    "avery",
    "sofia",
    "camila",
    "aria",
    "scarlett",
]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)
print(V, chars[:5], itos[0])

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    cs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(cs, cs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
print(N.dtype, N.sum().item(), N[0, :8], N.max(), N.argmax(), type(N[0, 1].item()).__name__)
print(N[stoi["a"]].tolist()[:10])
row = N[0].float()
print(row.dtype, (row / row.sum())[:6])

g = torch.Generator().manual_seed(2147483647)
p = torch.rand(3, generator=g)
p = p / p.sum()
print(p, torch.multinomial(p, num_samples=10, replacement=True, generator=g))

P = (N + 1).float()
print(P.sum(1, keepdims=True).shape, P.sum(1).shape, P.sum(dim=1, keepdim=True)[:3, 0])
wrong = P / P.sum(1)  # broadcasts along the wrong dim: columns get divided
P /= P.sum(1, keepdim=True)
print(torch.allclose(P.sum(1), torch.ones(V)), wrong[0].sum().item() != 1.0, P.is_contiguous())
print(P[0, :5])

g = torch.Generator().manual_seed(2147483647)
for i in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))

log_likelihood = 0.0
n = 0
for w in words[:3]:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        prob = P[stoi[ch1], stoi[ch2]]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
print(type(log_likelihood).__name__, log_likelihood.dtype, f"{log_likelihood=:.4f}")
nll = -log_likelihood
print(f"{nll / n:.4f}", (nll / n).shape)
# an unseen bigram without smoothing gives -inf / inf loss
P0 = N.float() / N.float().sum(1, keepdim=True)
print(torch.log(P0[stoi["j"] if "j" in stoi else 0, 0]), P0.isnan().sum().item(), torch.log(P0[1, 1]))

# the whole table in one vectorized pass
xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs, ys = torch.tensor(xs), torch.tensor(ys)
print(xs.dtype, xs.shape, ys[:8])
loss = -P[xs, ys].log().mean()
print(round(loss.item(), 4))
counts2 = torch.zeros(V * V, dtype=torch.int64).index_add_(0, xs * V + ys, torch.ones_like(xs)).view(V, V)
print(torch.equal(counts2, N.long()), torch.equal(counts2, N), (counts2 == N).all().item())
bc = torch.bincount(xs * V + ys, minlength=V * V).view(V, V)
print(bc.dtype, bc.sum().item(), torch.equal(bc.int(), N))
sampled = torch.multinomial(P, num_samples=3, replacement=True, generator=g)
print(sampled.shape, sampled[:4])
print(torch.multinomial(P[:2], 4, generator=g))
try:
    torch.multinomial(P[0, :3], 5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(N[0], 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(-P[0], 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.zeros(4), 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.ones(1, 2**24 + 1), 1)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 1).item(), torch.multinomial(N[0].double(), 2, generator=g))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    rows = N[torch.tensor([1, 0, 1] + [0] * (V - 3), dtype=torch.uint8)]
    p0 = P.new_tensor(P[0])
    torch.add(xs, 1, out=torch.empty(2, dtype=torch.long))
    Pt = torch.tensor(P)
print(rows.shape, p0.shape, Pt.requires_grad)
for m in w:
    print(m.category.__name__, str(m.message)[-100:])

"""makemore part 2 (Bengio et al. MLP): embedding table C[X], tanh hidden layer, F.cross_entropy vs manual.

Dataset of 3-char contexts, minibatches from a seeded Generator, a learning-rate sweep over 10**linspace.
"""

import random

import torch
import torch.nn.functional as F

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
    "victoria",
    "madison",
    "luna",
    "grace",
    "chloe",
    "penelope",
    "layla",
    "riley",
    "zoey",
    "nora",
]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape, X.dtype)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:])

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, 2), generator=g)
print(C[5], C[torch.tensor([5, 6, 7, 7])].shape, F.one_hot(torch.tensor(5), num_classes=vocab_size).float() @ C)
emb = C[Xtr]
print(emb.shape, emb.stride(), emb.is_contiguous())
W1 = torch.randn((6, 100), generator=g)
b1 = torch.randn(100, generator=g)
cat1 = torch.cat([emb[:, 0, :], emb[:, 1, :], emb[:, 2, :]], 1)
cat2 = torch.cat(torch.unbind(emb, 1), 1)
v = emb.view(-1, 6)
print(cat1.shape, torch.equal(cat1, cat2), torch.equal(v, cat1), v.data_ptr() == emb.data_ptr(), cat1.stride())
a = torch.arange(18)
print(a.view(3, 3, 2).stride(), a.untyped_storage().nbytes(), a.view(9, 2)[4])
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
print(h.shape, (emb.view(emb.shape[0], 6) @ W1).shape, (h.abs() > 0.99).float().mean().item() > 0)
W2 = torch.randn((100, vocab_size), generator=g)
b2 = torch.randn(vocab_size, generator=g)
logits = h @ W2 + b2
counts = logits.exp()
prob = counts / counts.sum(1, keepdims=True)
manual = -prob[torch.arange(Xtr.shape[0]), Ytr].log().mean()
loss = F.cross_entropy(logits, Ytr)
print(round(manual.item(), 3), round(loss.item(), 3), loss.grad_fn)
# numerical stability: cross_entropy subtracts the max, the naive version overflows
big = torch.tensor([[-5.0, 0.0, 3.0, 100.0]])
c = big.exp()
print(c, c / c.sum(1, keepdim=True), F.cross_entropy(big, torch.tensor([3])), F.softmax(big, dim=1))
print(F.cross_entropy(big, torch.tensor([0]), reduction="none"), F.log_softmax(big, 1))

parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

lre = torch.linspace(-3, 0, 1000)
lrs = 10**lre
print(lre[:3], lrs[[0, 500, 999]], lrs.dtype)
lri, lossi = [], []
for i in range(300):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = lrs[i * 3]
    for p in parameters:
        p.data += -lr * p.grad
    lri.append(lre[i * 3])
    lossi.append(loss.item())
print(type(lr).__name__, lr.dim(), round(lossi[0], 3), round(min(lossi), 3))
best = torch.tensor(lossi).argmin()
print(best.dtype, torch.stack(lri).shape, torch.tensor(lri)[best] < 0)
print(C.grad.shape, (C.grad != 0).any(dim=1).sum().item() <= vocab_size, C.grad.dtype)

with torch.no_grad():
    emb = C[Xdev]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    devloss = F.cross_entropy(h @ W2 + b2, Ydev)
print(devloss.requires_grad, devloss.grad_fn, round(devloss.item(), 2))

g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(3):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        probs = F.softmax(h @ W2 + b2, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 12:
            break
    print(len(out) > 0)
try:
    C[torch.tensor([vocab_size])]
except IndexError as e:
    print(type(e).__name__, e)
try:
    emb.view(-1, 5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, Ytr[ix].float())
except ValueError as e:
    print(type(e).__name__, e)

""" "Let's build GPT": the mathematical trick in self-attention, three ways, then one head and its scaling.

Loops of running means, tril matmuls, masked_fill(-inf) + softmax, q @ k.transpose(-2, -1) * head_size**-0.5.
"""

import warnings

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
B, T, C = 4, 8, 2
x = torch.randn(B, T, C)
print(x.shape, x[0, :2])

# version 1: for loops
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = x[b, : t + 1]
        xbow[b, t] = torch.mean(xprev, 0)
print(xbow[0, :3])

# version 2: matrix multiply for a weighted aggregation
wei = torch.tril(torch.ones(T, T))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ x  # (B, T, T) @ (B, T, C) ----> (B, T, C)
print(torch.allclose(xbow, xbow2, atol=1e-6), (xbow - xbow2).abs().max().item() < 1e-6, xbow2.shape)

# version 3: softmax
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
print(wei[:3, :3])
wei = F.softmax(wei, dim=-1)
print(wei[:3, :3], wei.sum(-1))
xbow3 = wei @ x
print(torch.allclose(xbow, xbow3, atol=1e-6))

# the toy example with a and b
torch.manual_seed(42)
a = torch.tril(torch.ones(3, 3))
a = a / torch.sum(a, 1, keepdim=True)
b = torch.randint(0, 10, (3, 2)).float()
c = a @ b
print("a=", a, "--", "b=", b, "--", "c=", c, sep="\n")

# version 4: self-attention, a single head
torch.manual_seed(1337)
B, T, C = 4, 8, 32
x = torch.randn(B, T, C)
head_size = 16
key = nn.Linear(C, head_size, bias=False)
query = nn.Linear(C, head_size, bias=False)
value = nn.Linear(C, head_size, bias=False)
k, q = key(x), query(x)
wei = q @ k.transpose(-2, -1)  # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
tril = torch.tril(torch.ones(T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
wei = F.softmax(wei, dim=-1)
out = wei @ value(x)
print(out.shape, wei[0, :3, :3], (wei[0] > 0).sum(1))
print(torch.equal(k.transpose(-2, -1), k.mT), k.transpose(1, 2).stride(), k.mT.is_contiguous())

# scaled attention keeps the variance of wei near 1
k = torch.randn(B, T, head_size)
q = torch.randn(B, T, head_size)
wei = q @ k.transpose(-2, -1) * head_size**-0.5
print(round(k.var().item(), 2), round(q.var().item(), 2), round(wei.var().item(), 2))
print(torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]), dim=-1))
print(torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]) * 8, dim=-1))

# edge cases a learner runs into
print(F.softmax(torch.full((2, 3), float("-inf")), dim=-1))
print(torch.tril(torch.ones(3, 4), diagonal=-1), torch.triu(torch.ones(3, 3), diagonal=1).bool())
print(torch.ones(3, 3, dtype=torch.long).masked_fill(torch.eye(3).bool(), 2.5))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(torch.tensor(2.0).mT, torch.tensor(1 - 2j).mH, torch.tensor(3.0).adjoint())
print([str(m.message).split(" (Triggered")[0] for m in w])
for f in (lambda: torch.ones(3).mT, lambda: torch.ones(3).adjoint(), lambda: torch.ones(2, 2, 2).H):
    try:
        f()
    except RuntimeError as e:
        print(type(e).__name__, e)
try:
    torch.ones(3, 3).masked_fill(torch.tensor([1, 0, 1]), 0.0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.ones(3, 3).masked_fill_(torch.ones(2, 3, 3).bool(), 0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    q @ k
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.bmm(q, k)
except RuntimeError as e:
    print(type(e).__name__, e)
sdpa = F.scaled_dot_product_attention(q, k, k, is_causal=True)
manual = F.softmax((q @ k.mT * head_size**-0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf")), -1) @ k
print(torch.allclose(sdpa, manual, atol=1e-5), sdpa.shape)

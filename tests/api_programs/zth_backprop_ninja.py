"""makemore part 4 "becoming a backprop ninja": every intermediate's gradient by hand, checked with cmp().

Intermediates keep .retain_grad(); the manual grads are compared for approximate equality and max difference.
"""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4)


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    assert isinstance(ex, bool)
    app = torch.allclose(dt, t.grad, rtol=1e-5, atol=1e-6)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | approximate: {str(app):5s} | maxdiff ok: {maxdiff < 1e-6} | {tuple(dt.shape)} {dt.dtype}")


n_embd, n_hidden, block_size, vocab_size, n = 10, 64, 3, 27, 32
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g, dtype=torch.float64)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g, dtype=torch.float64) * (5 / 3) / 30**0.5
b1 = torch.randn(n_hidden, generator=g, dtype=torch.float64) * 0.1
W2 = torch.randn((n_hidden, vocab_size), generator=g, dtype=torch.float64) * 0.1
b2 = torch.randn(vocab_size, generator=g, dtype=torch.float64) * 0.1
bngain = torch.randn((1, n_hidden), dtype=torch.float64, generator=g) * 0.1 + 1.0
bnbias = torch.randn((1, n_hidden), dtype=torch.float64, generator=g) * 0.1
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
Xb = torch.randint(0, vocab_size, (n, block_size), generator=g)
Yb = torch.randint(0, vocab_size, (n,), generator=g)

emb = C[Xb]
embcat = emb.view(emb.shape[0], -1)
hprebn = embcat @ W1 + b1
bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
bndiff = hprebn - bnmeani
bndiff2 = bndiff**2
bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
bnvar_inv = (bnvar + 1e-5) ** -0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = torch.tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
for p in parameters:
    p.grad = None
for t in [
    logprobs,
    probs,
    counts,
    counts_sum,
    counts_sum_inv,
    norm_logits,
    logit_maxes,
    logits,
    h,
    hpreact,
    bnraw,
    bnvar_inv,
    bnvar,
    bndiff2,
    bndiff,
    hprebn,
    bnmeani,
    embcat,
    emb,
]:
    t.retain_grad()
loss.backward()
print(round(loss.item(), 4), logprobs.retains_grad, W1.retains_grad, loss.grad)

dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h**2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnraw = bngain * dhpreact
dbnbias = dhpreact.sum(0, keepdim=True)
dbndiff = bnvar_inv * dbnraw
dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
dbndiff += (2 * bndiff) * dbndiff2
dhprebn = dbndiff.clone()
dbnmeani = (-dbndiff).sum(0)
dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        dC[Xb[k, j]] += demb[k, j]
for name, d, t in [
    ("logprobs", dlogprobs, logprobs),
    ("probs", dprobs, probs),
    ("counts_sum_inv", dcounts_sum_inv, counts_sum_inv),
    ("counts_sum", dcounts_sum, counts_sum),
    ("counts", dcounts, counts),
    ("norm_logits", dnorm_logits, norm_logits),
    ("logit_maxes", dlogit_maxes, logit_maxes),
    ("logits", dlogits, logits),
    ("h", dh, h),
    ("W2", dW2, W2),
    ("b2", db2, b2),
    ("hpreact", dhpreact, hpreact),
    ("bngain", dbngain, bngain),
    ("bnbias", dbnbias, bnbias),
    ("bnraw", dbnraw, bnraw),
    ("bnvar_inv", dbnvar_inv, bnvar_inv),
    ("bnvar", dbnvar, bnvar),
    ("bndiff2", dbndiff2, bndiff2),
    ("bndiff", dbndiff, bndiff),
    ("bnmeani", dbnmeani, bnmeani),
    ("hprebn", dhprebn, hprebn),
    ("embcat", dembcat, embcat),
    ("W1", dW1, W1),
    ("b1", db1, b1),
    ("emb", demb, emb),
    ("C", dC, C),
]:
    cmp(name, d, t)
print(dlogit_maxes.abs().max().item() < 1e-12, bnmeani.grad.shape, dbnmeani.shape)
dC2 = torch.zeros_like(C).index_add_(0, Xb.view(-1), demb.view(-1, n_embd))
print(torch.allclose(dC, dC2), torch.allclose(dC2, C.grad))

# exercise 2: the loss and dlogits in one shot
loss_fast = F.cross_entropy(logits, Yb)
print(f"{loss_fast.item():.6f}", "diff:", (loss_fast - loss).abs().item() < 1e-12)
dlogits2 = F.softmax(logits, 1)
dlogits2[range(n), Yb] -= 1
dlogits2 /= n
cmp("logits fast", dlogits2, logits)
print(dlogits2.sum(1).abs().max().item() < 1e-12, dlogits2[0, :4], dlogits2.shape)

# exercise 3: batchnorm backward in one line
hpreact_fast = (
    bngain * (hprebn - hprebn.mean(0, keepdim=True)) / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5)
    + bnbias
)
print("max diff:", (hpreact_fast - hpreact).abs().max().item() < 1e-12)
dhprebn2 = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
cmp("hprebn fast", dhprebn2, hprebn)
print(hprebn.grad.dtype, hprebn.grad.is_contiguous(), hprebn.grad.stride(), logits.grad.requires_grad)
f32 = (dhprebn2.float() - hprebn.grad.float()).abs().max()
print(f32.dtype, f32.item() < 1e-6, torch.all(dhprebn2 == hprebn.grad).dtype)

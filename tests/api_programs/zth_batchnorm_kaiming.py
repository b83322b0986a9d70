"""makemore part 3: activations and gradients, kaiming init gain 5/3 for tanh, BatchNorm written by hand.

Running mean/std updated under torch.no_grad, compared with nn.BatchNorm1d; saturation and histogram prints.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
print(nn.init.calculate_gain("tanh"), nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2))
print(nn.init.calculate_gain("linear"), nn.init.calculate_gain("conv1d"), nn.init.calculate_gain("selu"))
try:
    nn.init.calculate_gain("gelu")
except ValueError as e:
    print(type(e).__name__, e)

n_embd, n_hidden, block_size, vocab_size = 10, 200, 3, 27
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
print(sum(p.nelement() for p in parameters), round(W1.std().item(), 3), round((5 / 3) / 30**0.5, 3))
for p in parameters:
    p.requires_grad = True

w = torch.empty(n_hidden, n_embd * block_size)
nn.init.kaiming_normal_(w, mode="fan_in", nonlinearity="tanh", generator=torch.Generator().manual_seed(0))
print(round(w.std().item(), 2), w.shape)
w2 = nn.init.kaiming_uniform_(torch.empty(3, 5), a=5**0.5)
print(w2.abs().max().item() <= 1 / 5**0.5, nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 2)))

Xb = torch.randint(0, vocab_size, (32, block_size), generator=g)
Yb = torch.randint(0, vocab_size, (32,), generator=g)
for i in range(3):
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
    print(i, round(loss.item(), 4), bnmean_running.requires_grad, bnmean_running.grad_fn)
print(bnmean_running.shape, round(bnstd_running.mean().item(), 4), round(bnmean_running.abs().max().item(), 4))
print("saturated", round((h.abs() > 0.97).float().mean().item(), 4), h.dtype)
hy, hx = torch.histogram(h.detach(), bins=5, range=(-1.0, 1.0))
print(hy, hx)
print(torch.histc(h.detach(), bins=5, min=-1, max=1), torch.histc(torch.tensor([1.0, 2, 1]), bins=4, min=0, max=3))
print(torch.histogram(torch.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0), density=True))
print(torch.histogram(torch.tensor([1.0, 2, 1]), torch.tensor([0.0, 1.5, 3.0]), weight=torch.tensor([1.0, 2, 3])))

# calibrate the batch norm at the end of training
with torch.no_grad():
    emb = C[Xb]
    hpreact = emb.view(emb.shape[0], -1) @ W1
    bnmean = hpreact.mean(0, keepdim=True)
    bnstd = hpreact.std(0, keepdim=True)
print(bnmean.shape, torch.allclose(bnmean, hpreact.mean(0)), bnstd.requires_grad)
print(hpreact.var(0, unbiased=False).shape, torch.var_mean(hpreact[:, :3], 0, correction=0))

# the same thing with nn.BatchNorm1d: biased var normalises, unbiased var in the running stats
bn = nn.BatchNorm1d(n_hidden, momentum=0.001)
print(bn, bn.running_var[:3], bn.num_batches_tracked, bn.weight.shape)
x = hpreact.detach()
out = bn(x)
manual = (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + bn.eps)
print(torch.allclose(out, manual, atol=1e-5), bn.num_batches_tracked.item(), bn.num_batches_tracked.dtype)
print(torch.allclose(bn.running_mean, 0.001 * x.mean(0)), torch.allclose(bn.running_var, 0.999 + 0.001 * x.var(0)))
bn.eval()
out_eval = bn(x)
print(torch.allclose(out_eval, (x - bn.running_mean) / torch.sqrt(bn.running_var + 1e-5), atol=1e-5))
bn2 = nn.BatchNorm1d(4, affine=False, track_running_stats=False)
print(bn2, bn2.running_mean, dict(bn2.named_buffers()), len(list(bn2.parameters())))
bn3 = nn.BatchNorm1d(4, momentum=None)
for _ in range(3):
    bn3(torch.arange(8.0).view(2, 4) * (_ + 1))
print(bn3.running_mean, bn3.running_var, bn3.num_batches_tracked)
try:
    nn.BatchNorm1d(4)(torch.randn(1, 4))
except ValueError as e:
    print(type(e).__name__, e)
try:
    nn.BatchNorm1d(4)(torch.randn(2, 5))
except RuntimeError as e:
    print(type(e).__name__, e)
print(nn.BatchNorm1d(3)(torch.randn(2, 3, 5)).shape)
print(F.batch_norm(torch.ones(2, 3), torch.zeros(3), torch.ones(3), training=False))
print(bn.state_dict().keys())

"""makemore part 3's diagnostics: per-layer activation and gradient stats, grad:data and update:data ratios.

The '%+.2f' and f'{t:e}' prints of 0-d tensors, saturation percentages, histogram-like prints, retain_grad on outs.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
g = torch.Generator().manual_seed(2147483647)
n_embd, n_hidden, vocab_size, block_size = 10, 50, 27, 3
C = torch.randn((vocab_size, n_embd), generator=g)
layers = [nn.Linear(n_embd * block_size, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
          nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
          nn.Linear(n_hidden, vocab_size)]  # fmt: skip
with torch.no_grad():
    layers[-1].weight *= 0.1
    for layer in layers[:-1]:
        if isinstance(layer, nn.Linear):
            layer.weight *= 5 / 3
parameters = [C] + [p for layer in layers for p in layer.parameters()]
print(sum(p.nelement() for p in parameters), all(p.requires_grad for p in parameters[1:]), C.requires_grad)
C.requires_grad_(True)

Xb = torch.randint(0, vocab_size, (32, block_size), generator=g)
Yb = torch.randint(0, vocab_size, (32,), generator=g)
ud = []
for i in range(5):
    x = C[Xb].view(Xb.shape[0], -1)
    outs = []
    for layer in layers:
        x = layer(x)
        x.retain_grad()
        outs.append(x)
    loss = F.cross_entropy(x, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1
    for p in parameters:
        p.data += -lr * p.grad
    with torch.no_grad():
        ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])
    print(f"{i:3d}/{5:3d}: {loss.item():.4f}")

for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, nn.Tanh):
        t = outs[i]
        print("layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%"  # noqa: UP031
              % (i, layer.__class__.__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean() * 100))  # fmt: skip
        hy, hx = torch.histogram(t.detach(), bins=8, range=(-1.0, 1.0), density=True)
        print(" ", hx[:-1].tolist()[:2], hy.round(decimals=3))
for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, nn.Tanh):
        t = outs[i].grad
        args = (i, layer.__class__.__name__, t.mean().abs() < 1e-4, t.std())
        print("layer %d (%10s): |mean| < 1e-4 %s, std %e" % args)  # noqa: UP031
for p in parameters:
    t = p.grad
    if p.ndim == 2:
        print(f"weight {tuple(p.shape)!s:>10} | std {t.std():e} | grad:data ratio {t.std() / p.std():e}")
print([round(v, 3) for v in ud[-1]][:3], len(ud), len(ud[0]), torch.tensor(ud).shape, torch.tensor(ud).dtype)
print(f"{torch.tensor(2.5):.3f} {torch.tensor(3):d} {torch.tensor(True)} {torch.tensor(1e-3):.1e} {torch.tensor(7):>4}")
print("%d %s %x %.1f" % (torch.tensor(3), torch.tensor([1, 2]), torch.tensor(255), torch.tensor([2.0])))  # noqa: UP031
for spec in (".3f", "d", ">10"):
    for v in (torch.tensor([1.5]), torch.tensor(2.5), torch.tensor([[1]])):
        try:
            print(repr(format(v, spec)))
        except (TypeError, ValueError) as e:
            print(type(e).__name__, e)
for bad in (lambda: "%.2f" % torch.tensor([1.0, 2.0]), lambda: "%x" % torch.tensor(3.7), lambda: int(torch.ones(2))):  # noqa: UP031
    try:
        bad()
    except (TypeError, ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
print([1, 2, 3][torch.tensor(1)], range(10)[torch.tensor(2)], int(torch.tensor(3.9)), float(torch.tensor([2])))
try:
    [1, 2, 3][torch.tensor(1.0)]
except TypeError as e:
    print(type(e).__name__, e)
print(torch.tensor(3.0).log10(), torch.tensor([1e-3, 1.0, 0.0]).log10(), torch.tensor([-1.0]).log10())
print(layers[1].running_mean[:3], layers[1].num_batches_tracked, layers[1].training, layers[2])
stats = {n: (p.grad.norm().item() > 0) for n, p in nn.ModuleList(layers).named_parameters()}
print(list(stats.items())[:3], nn.utils.parameters_to_vector(parameters).shape)
print(nn.utils.clip_grad_norm_(parameters, 1e-3) > 1e-3, max(p.grad.norm() for p in parameters) <= 1e-3 + 1e-6)
print(nn.utils.clip_grad_value_(parameters, 1e-5), max(p.grad.abs().max() for p in parameters).item() <= 1e-5)

"""DP-SGD by hand with torch.func: per-sample gradients from vmap(grad(loss)) over functional_call, per-sample
clipping to a norm bound, Gaussian noise drawn from a seeded torch.Generator, and the noisy mean applied to the
parameters; checked against a per-example loop and compared with the non-private step."""

import torch
from torch.func import functional_call, grad, vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
X = torch.randn(32, 8)
Y = torch.randint(0, 4, (32,))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def loss_fn(p, b, x, y):
    out = functional_call(model, (p, b), (x.unsqueeze(0),))
    return F.cross_entropy(out, y.unsqueeze(0))


per_sample = vmap(grad(loss_fn), in_dims=(None, None, 0, 0))(params, buffers, X, Y)
print({k: tuple(v.shape) for k, v in per_sample.items()})

# reference: a loop of ordinary backward calls
ref = []
for i in range(4):
    model.zero_grad()
    F.cross_entropy(model(X[i:i + 1]), Y[i:i + 1]).backward()
    ref.append(model[0].weight.grad.clone())
print("matches loop", all(torch.allclose(per_sample["0.weight"][i], ref[i], atol=1e-6) for i in range(4)))

C, sigma, lr = 1.0, 1.1, 0.5
norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()], dim=1).norm(dim=1)
print("norms", norms[:6].round(decimals=4).tolist(), "clipped", int((norms > C).sum()))
factor = (C / (norms + 1e-6)).clamp(max=1.0)
clipped = {k: g * factor.view(-1, *([1] * (g.dim() - 1))) for k, g in per_sample.items()}
new_norms = torch.stack([g.flatten(1).norm(dim=1) for g in clipped.values()], 1).norm(dim=1)
print("max clipped norm", round(new_norms.max().item(), 4), bool((new_norms <= C + 1e-4).all()))

gen = torch.Generator().manual_seed(1234)
noisy = {}
for k, g in clipped.items():
    noise = torch.normal(0.0, sigma * C, size=g.shape[1:], generator=gen)
    noisy[k] = (g.sum(0) + noise) / X.shape[0]
print("noise std param", round(sigma * C / X.shape[0], 4))
print("noisy bias", noisy["2.bias"].round(decimals=4).tolist())
with torch.no_grad():
    for k, p in model.named_parameters():
        p.sub_(lr * noisy[k])
print("after step", round(F.cross_entropy(model(X), Y).item(), 4))

# the same draw again from a re-seeded generator
gen.manual_seed(1234)
again = torch.normal(0.0, sigma * C, size=per_sample["0.weight"].shape[1:], generator=gen)
gen.manual_seed(1234)
again2 = torch.randn(per_sample["0.weight"].shape[1:], generator=gen) * sigma * C
print("reseed", torch.equal(again, again2), round(again.sum().item(), 4))

# chunked vmap and randomness
ps2 = vmap(grad(loss_fn), in_dims=(None, None, 0, 0), chunk_size=5)(params, buffers, X, Y)
print("chunked equal", all(torch.allclose(ps2[k], per_sample[k]) for k in ps2))
try:
    vmap(lambda x: x + torch.randn(3))(torch.zeros(2, 3))
except Exception as e:
    print(type(e).__name__, str(e)[:120])
same = vmap(lambda x: x + torch.randn(3), randomness="same")(torch.zeros(2, 3))
print("same rows", torch.equal(same[0], same[1]))
try:
    vmap(grad(loss_fn), in_dims=(None, None, 0, 0))(params, buffers, X, Y[:5])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.normal(0.0, -1.0, size=(2,))
except Exception as e:
    print(type(e).__name__, e)

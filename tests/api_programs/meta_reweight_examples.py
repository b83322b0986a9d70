"""Learning to reweight examples (Ren et al., 2018) for noisy labels: a one-step look-ahead of the model on the
per-example-weighted training loss (weights eps start at zero and require grad), the clean-validation loss of the
look-ahead differentiated w.r.t. eps, clamped and normalized into example weights; and the same meta-gradient
computed with torch.func (functional_call + grad over eps), with per-example losses from reduction='none'."""

import torch
from torch.func import functional_call, grad

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

n, d, k = 32, 6, 3
W_true = torch.randn(d, k)
X = torch.randn(n, d)
y_clean = (X @ W_true).argmax(1)
noisy = torch.zeros(n, dtype=torch.bool)
noisy[torch.randperm(n)[:10]] = True
y = torch.where(noisy, (y_clean + 1) % k, y_clean)
Xv = torch.randn(12, d)
yv = (Xv @ W_true).argmax(1)
print("noisy labels", int(noisy.sum()), "of", n)

model = nn.Sequential(nn.Linear(d, 16), nn.Tanh(), nn.Linear(16, k))
opt = torch.optim.SGD(model.parameters(), lr=0.3)
inner_lr = 0.3


def example_weights(xb, yb):
    params = dict(model.named_parameters())
    eps = torch.zeros(xb.shape[0], requires_grad=True)
    losses = F.cross_entropy(functional_call(model, params, (xb,)), yb, reduction="none")
    grads = torch.autograd.grad((eps * losses).sum(), list(params.values()), create_graph=True)
    lookahead = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
    val = F.cross_entropy(functional_call(model, lookahead, (Xv,)), yv)
    (g_eps,) = torch.autograd.grad(val, eps)
    w = torch.clamp(-g_eps, min=0)
    norm = w.sum()
    return (w / norm if norm > 0 else w), g_eps


for epoch in range(6):
    w, g_eps = example_weights(X, y)
    losses = F.cross_entropy(model(X), y, reduction="none")
    loss = (w * losses).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    clean_mass = w[~noisy].sum().item()
    acc = (model(Xv).argmax(1) == yv).float().mean().item()
    print(f"epoch {epoch} weighted loss {loss.item():.4f} weight on clean {clean_mass:.4f} "
          f"zero-weighted noisy {int((w[noisy] == 0).sum())}/10 val acc {acc:.4f}")

# the same meta-gradient with torch.func: d val(look-ahead(eps)) / d eps at eps = 0
params = {k_: v.detach() for k_, v in model.named_parameters()}


def val_after_step(eps, p):
    g = grad(lambda q: (eps * F.cross_entropy(functional_call(model, q, (X,)), y, reduction="none")).sum())(p)
    look = {k_: p[k_] - inner_lr * g[k_] for k_ in p}
    return F.cross_entropy(functional_call(model, look, (Xv,)), yv)


g_func = grad(val_after_step)(torch.zeros(n), params)
_, g_eps = example_weights(X, y)
print("func meta-grad matches", torch.allclose(g_func, g_eps, atol=1e-6), "shape", tuple(g_func.shape))
print("most helpful examples", torch.topk(-g_func, 3).indices.tolist(), "least", torch.topk(g_func, 3).indices.tolist())

# per-example losses: the reductions agree
losses = F.cross_entropy(model(X), y, reduction="none")
print("none/mean/sum", tuple(losses.shape), round(losses.mean().item(), 4),
      round(F.cross_entropy(model(X), y).item(), 4), round(F.cross_entropy(model(X), y, reduction="sum").item(), 4))
print("weighted by class", round(F.cross_entropy(model(X), y, weight=torch.tensor([1.0, 2.0, 0.5])).item(), 4))

for bad in [lambda: F.cross_entropy(model(X), y, reduction="avg"),
            lambda: torch.autograd.grad(losses, list(model.parameters())),
            lambda: torch.autograd.grad(losses.sum(), torch.zeros(3, requires_grad=True)),
            lambda: F.cross_entropy(model(X), y, weight=torch.ones(2))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

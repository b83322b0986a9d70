"""A JAX-style functional training loop in PyTorch: pure loss(params, buffers, batch), grad_and_value with aux,
hand-rolled SGD/Adam on dicts, BatchNorm under vmap (replace_all_batch_norm_modules_), functionalize, and the
errors users hit mixing transforms with mutation."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, functionalize, grad, grad_and_value, replace_all_batch_norm_modules_, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
params = {k: v.detach().clone() for k, v in model.named_parameters()}
buffers = {k: v.detach().clone() for k, v in model.named_buffers()}

# two-moons-like data
n = 64
t = torch.rand(n) * 3.1416
X = torch.cat([torch.stack([t.cos(), t.sin()], 1), torch.stack([1 - t.cos(), 0.5 - t.sin()], 1)])
X = X + 0.1 * torch.randn_like(X)
Y = torch.cat([torch.zeros(n, dtype=torch.long), torch.ones(n, dtype=torch.long)])


def loss_fn(p, b, xb, yb):
    logits = functional_call(model, (p, b), (xb,))
    loss = F.cross_entropy(logits, yb)
    acc = (logits.argmax(1) == yb).float().mean()
    return loss, {"acc": acc}


def tree_map(f, *trees):
    return {k: f(*(tr[k] for tr in trees)) for k in trees[0]}


# Adam on a dict of tensors
state = {"m": tree_map(torch.zeros_like, params), "v": tree_map(torch.zeros_like, params), "t": 0}


def adam_update(p, g, st, lr=0.02, b1=0.9, b2=0.999, eps=1e-8):
    st["t"] += 1
    st["m"] = tree_map(lambda m, gg: b1 * m + (1 - b1) * gg, st["m"], g)
    st["v"] = tree_map(lambda v, gg: b2 * v + (1 - b2) * gg * gg, st["v"], g)
    mh = tree_map(lambda m: m / (1 - b1 ** st["t"]), st["m"])
    vh = tree_map(lambda v: v / (1 - b2 ** st["t"]), st["v"])
    return tree_map(lambda w, m, v: w - lr * m / (v.sqrt() + eps), p, mh, vh)


step_fn = grad_and_value(loss_fn, has_aux=True)
perm = torch.randperm(2 * n)
for epoch in range(6):
    for i in range(0, 2 * n, 32):
        idx = perm[i:i + 32]
        g, (loss, aux) = step_fn(params, buffers, X[idx], Y[idx])
        params = adam_update(params, g, state)
    full_loss, full_aux = loss_fn(params, buffers, X, Y)
    print(f"epoch {epoch} loss {full_loss.item():.4f} acc {full_aux['acc'].item():.4f}")

# the hand-rolled Adam equals torch.optim.Adam on the same gradients
ref_model = nn.Linear(3, 1)
ref_p = {k: v.detach().clone() for k, v in ref_model.named_parameters()}
opt = torch.optim.Adam(ref_model.parameters(), lr=0.02)
st2 = {"m": tree_map(torch.zeros_like, ref_p), "v": tree_map(torch.zeros_like, ref_p), "t": 0}
xr, yr = torch.randn(8, 3), torch.randn(8, 1)
for _ in range(3):
    g = grad(lambda p: F.mse_loss(functional_call(ref_model, p, (xr,)), yr))(ref_p)
    ref_p = adam_update(ref_p, g, st2)
    opt.zero_grad()
    F.mse_loss(ref_model(xr), yr).backward()
    opt.step()
print("matches torch.optim.Adam", all(torch.allclose(ref_p[k], v, atol=1e-6) for k, v in ref_model.named_parameters()))

# BatchNorm: running stats are mutated in place, which vmap cannot batch
bn_net = nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
bp = {k: v.detach() for k, v in bn_net.named_parameters()}
bb = {k: v.detach() for k, v in bn_net.named_buffers()}
print("bn buffers", sorted(bb))
xs = torch.randn(3, 5, 2)
show("vmap over train-mode BN", lambda: vmap(lambda x: functional_call(bn_net, (bp, bb), (x,)))(xs).shape)
replace_all_batch_norm_modules_(bn_net)
print("after replace: running_mean", bn_net[1].running_mean, "track", bn_net[1].track_running_stats)
out = vmap(lambda x: functional_call(bn_net, bp, (x,)))(xs)
print("vmapped BN", out.shape, out[0, :2, 0])
bn_net.eval()
show("eval BN without stats", lambda: bn_net(xs[0]).shape)

# grad of a function that writes into a captured tensor
counter = torch.zeros(())


def leaky(w):
    counter.add_(1)
    return (w * 2).sum()


show("captured in-place", lambda: grad(leaky)(torch.ones(2)))
print("counter", counter.item())

# functionalize keeps values and input mutations
def f_mut(a):
    b = a.clone()
    b.mul_(2)
    a.add_(1)
    return b.sum()


a = torch.ones(3)
print("functionalize", functionalize(f_mut)(a).item(), a)
print("grad(functionalize)", grad(functionalize(lambda w: (w.clone().mul_(3) ** 2).sum()))(torch.ones(2)))

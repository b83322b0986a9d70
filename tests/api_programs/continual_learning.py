"""Continual learning by hand: EWC with a diagonal Fisher from per-sample gradients (autograd.grad and torch.func),
a reservoir replay buffer with index_copy_, distillation with temperature (kl_div both ways), LwF, SI path
integrals, and early stopping that keeps the best state_dict."""

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

rng = np.random.default_rng(21)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(npt(*p.shape, scale=0.4))
xa, ya = npt(16, 5), torch.from_numpy(rng.integers(0, 3, 16))
xb, yb = npt(16, 5) + 1.0, torch.from_numpy(rng.integers(0, 3, 16))

# diagonal Fisher, loop over samples with autograd.grad
params = [p for p in net.parameters() if p.requires_grad]
fisher = [torch.zeros_like(p) for p in params]
for i in range(len(xa)):
    out = net(xa[i : i + 1])
    lp = F.log_softmax(out, dim=1)[0, ya[i]]
    gs = torch.autograd.grad(lp, params, retain_graph=False)
    for f, g in zip(fisher, gs):
        f += g.detach() ** 2 / len(xa)
print("fisher_loop", [tuple(f.shape) for f in fisher], r(fisher[0]), round(sum(f.sum() for f in fisher).item(), 4))

# the same with torch.func: vmap over per-sample grads
pdict = {k: v.detach() for k, v in net.named_parameters()}


def sample_logp(p, x, y):
    out = functional_call(net, p, (x.unsqueeze(0),))
    return -F.cross_entropy(out, y.unsqueeze(0))


per_sample = vmap(grad(sample_logp), in_dims=(None, 0, 0))(pdict, xa, ya)
fisher_func = {k: (g**2).mean(0) for k, g in per_sample.items()}
print("fisher_func", list(fisher_func), per_sample["fc1.weight"].shape)
print("fisher_agree", all(torch.allclose(a, fisher_func[k], atol=1e-6) for a, k in zip(fisher, fisher_func)))

star = {k: v.clone() for k, v in pdict.items()}


def ewc_penalty(model, lam=50.0):
    return lam / 2 * sum((fisher_func[n] * (p - star[n]) ** 2).sum() for n, p in model.named_parameters())


opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
teacher = copy.deepcopy(net).eval()
for p in teacher.parameters():
    p.requires_grad_(False)
buffer_x = torch.zeros(6, 5)
buffer_y = torch.full((6,), -1, dtype=torch.long)
seen = 0
best, best_state, bad = float("inf"), None, 0
omega = {n: torch.zeros_like(p) for n, p in net.named_parameters()}
prev = {n: p.detach().clone() for n, p in net.named_parameters()}
T = 2.0
for step in range(6):
    batch = slice(4 * (step % 4), 4 * (step % 4) + 4)
    x, y = xb[batch], yb[batch]
    # reservoir sampling with numpy-drawn slots, written by index_copy_
    for j in range(len(x)):
        slot = seen if seen < 6 else int(rng.integers(0, seen + 1))
        if slot < 6:
            buffer_x.index_copy_(0, torch.tensor([slot]), x[j : j + 1])
            buffer_y.index_copy_(0, torch.tensor([slot]), y[j : j + 1])
        seen += 1
    valid = buffer_y >= 0
    out = net(x)
    ce = F.cross_entropy(out, y)
    replay = F.cross_entropy(net(buffer_x[valid]), buffer_y[valid])
    with torch.no_grad():
        t_logits = teacher(x)
    kd = F.kl_div(F.log_softmax(out / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
    kd_log = F.kl_div(F.log_softmax(out / T, 1), F.log_softmax(t_logits / T, 1), reduction="batchmean", log_target=True)
    pen = ewc_penalty(net)
    loss = ce + 0.5 * replay + kd + pen
    opt.zero_grad()
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in net.named_parameters()}
    opt.step()
    for n, p in net.named_parameters():  # SI: path integral of -g * delta
        omega[n] += -grads[n] * (p.detach() - prev[n])
        prev[n] = p.detach().clone()
    val = F.cross_entropy(net(xa), ya).item()
    print(
        f"step {step} ce {ce.item():.4f} replay {replay.item():.4f} kd {kd.item():.4f} {kd_log.item() * T * T:.4f}"
        f" ewc {pen.item():.4f} val {val:.4f} buf {int(valid.sum())}"
    )
    if val < best - 1e-3:
        best, bad = val, 0
        best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    else:
        bad += 1
        if bad >= 2:
            print("early stop at", step)
            break
print("buffer", buffer_y.tolist(), seen, buffer_x.dtype)
print("best", round(best, 4), sorted(best_state), best_state["fc1.weight"].requires_grad)
net.load_state_dict(best_state)
print("restored", round(F.cross_entropy(net(xa), ya).item(), 4))
si = {n: o / ((p.detach() - star[n]) ** 2 + 0.1) for (n, o), p in zip(omega.items(), net.parameters())}
print("si", r(si["fc2.bias"]), round(sum(v.sum() for v in si.values()).item(), 4))

# LwF: old-head outputs as soft targets, three reductions of kl_div
new_logits = net(xa[:4])
old_logits = teacher(xa[:4])
for red in ("batchmean", "sum", "mean", "none"):
    v = F.kl_div(F.log_softmax(new_logits, 1), F.softmax(old_logits, 1), reduction=red)
    print("kl", red, v.shape, r(v, 3))
kl_mod = nn.KLDivLoss(reduction="batchmean", log_target=True)
print(kl_mod, round(kl_mod(F.log_softmax(new_logits, 1), F.log_softmax(old_logits, 1)).item(), 4))
soft_ce = -(F.softmax(old_logits / T, 1) * F.log_softmax(new_logits / T, 1)).sum(1).mean()
print(
    "soft_ce", round(soft_ce.item(), 4), round(F.cross_entropy(new_logits / T, F.softmax(old_logits / T, 1)).item(), 4)
)
for name, fn in [
    ("index_copy_len", lambda: buffer_x.index_copy_(0, torch.tensor([0, 1]), xb[:1])),
    ("index_copy_dtype", lambda: buffer_y.index_copy_(0, torch.tensor([0]), torch.tensor([1.0]))),
    ("index_copy_range", lambda: buffer_x.index_copy_(0, torch.tensor([9]), xb[:1])),
    ("kl_shape", lambda: F.kl_div(new_logits, old_logits[:2])),
    ("grad_unused", lambda: torch.autograd.grad(net(xa).sum(), [nn.Parameter(torch.ones(1))])),
    ("load_missing", lambda: net.load_state_dict({"fc1.weight": best_state["fc1.weight"]})),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])

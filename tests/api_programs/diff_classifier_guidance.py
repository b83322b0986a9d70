"""Classifier guidance (Dhariwal & Nichol) inside a sampler that runs under torch.inference_mode/no_grad: the
classifier's log-probability gradient taken under torch.enable_grad on a detached, requires_grad_ copy, the guided
mean shift by the posterior variance, universal guidance on a predicted x0, and the errors inference tensors raise
when they meet autograd."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def det_init_(m, scale=0.3):
    with torch.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.57 + k).view_as(p))


class NoisyClassifier(nn.Module):
    def __init__(self, ch=2, n_cls=3):
        super().__init__()
        self.conv = nn.Conv2d(ch, 8, 3, padding=1)
        self.temb = nn.Embedding(100, 8)
        self.head = nn.Linear(8, n_cls)

    def forward(self, x, t):
        h = F.silu(self.conv(x) + self.temb(t)[:, :, None, None])
        return self.head(F.adaptive_avg_pool2d(h, 1).flatten(1))


class Eps(nn.Module):
    def __init__(self, ch=2):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, t):
        return torch.tanh(self.conv(x)) * (t.float().view(-1, 1, 1, 1) / 100)


clf, eps_model = NoisyClassifier(), Eps()
det_init_(clf)
det_init_(eps_model)
T = 100
betas = torch.linspace(1e-3, 0.05, T)
alphas = 1 - betas
ac = alphas.cumprod(0)
ac_prev = torch.cat([torch.ones(1), ac[:-1]])
post_var = betas * (1 - ac_prev) / (1 - ac)


def cond_fn(x, t, y, scale):
    with torch.enable_grad():
        x_in = x.detach().requires_grad_(True)
        logits = clf(x_in, t)
        log_probs = F.log_softmax(logits, dim=-1)
        selected = log_probs[range(len(logits)), y.view(-1)]
        grad = torch.autograd.grad(selected.sum(), x_in)[0]
        return grad * scale, selected.detach()


y = torch.tensor([0, 2])
x = torch.randn(2, 2, 5, 5)
g = torch.Generator().manual_seed(11)
with torch.inference_mode():
    print("inference mode:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    for step, t_int in enumerate([80, 60, 40, 20, 1]):
        t = torch.full((2,), t_int, dtype=torch.long)
        eps = eps_model(x, t)
        mean = (x - betas[t_int] / (1 - ac[t_int]).sqrt() * eps) / alphas[t_int].sqrt()
        try:
            grad, lp = cond_fn(x, t, y, scale=3.0)
        except RuntimeError as e:
            print("inside inference_mode:", type(e).__name__, str(e)[:60])
            break
    print("is inference tensor:", x.is_inference(), mean.is_inference())

with torch.no_grad():
    logs = []
    for step, t_int in enumerate([80, 60, 40, 20, 1]):
        t = torch.full((2,), t_int, dtype=torch.long)
        eps = eps_model(x, t)
        mean = (x - betas[t_int] / (1 - ac[t_int]).sqrt() * eps) / alphas[t_int].sqrt()
        grad, lp = cond_fn(x, t, y, scale=3.0)
        mean = mean + post_var[t_int] * grad
        noise = torch.randn(x.shape, generator=g)
        x = mean + (post_var[t_int].sqrt() * noise if t_int > 1 else 0)
        logs.append((round(grad.norm().item(), 4), r(lp, 2)))
    print("guided steps:", logs)
    print("final:", r(x.flatten(1).mean(1)), x.requires_grad, torch.is_grad_enabled())

# universal guidance: gradient of a loss on the predicted x0 with respect to x_t
with torch.no_grad():
    t_int = 40
    t = torch.full((2,), t_int)
    with torch.enable_grad():
        xt = x.detach().requires_grad_()
        x0_hat = (xt - (1 - ac[t_int]).sqrt() * eps_model(xt, t)) / ac[t_int].sqrt()
        loss = F.cross_entropy(clf(x0_hat, torch.zeros_like(t)), y)
        g_x = torch.autograd.grad(loss, xt)[0]
    print("universal:", round(loss.item(), 4), round(g_x.norm().item(), 4), g_x.requires_grad)

with torch.inference_mode():
    frozen = clf(x, torch.full((2,), 5))
print("inference output:", frozen.is_inference(), frozen.requires_grad, r(frozen, 3))
try:
    (frozen * torch.ones(3, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", str(e).split(".")[0])
try:
    frozen.add_(1)
except RuntimeError as e:
    print("RuntimeError", str(e).split(".")[0])
try:
    nn.Parameter(frozen)
except RuntimeError as e:
    print("RuntimeError", e)
with torch.inference_mode():
    print(
        "detach inside:", x.detach().is_inference(), frozen.detach().is_inference(), x.view(torch.int32).is_inference()
    )
cloned = frozen.clone()
cloned.add_(1)
print("clone is normal:", cloned.is_inference(), r(cloned - frozen, 3))
with torch.inference_mode(mode=False):
    print("mode=False:", torch.is_inference_mode_enabled(), clf(x, torch.full((2,), 5)).requires_grad)


@torch.inference_mode()
def predict(z):
    return clf(z, torch.full((z.shape[0],), 5)).argmax(-1)


print("decorated:", predict(x).tolist(), predict(x).is_inference(), predict(x).dtype)
with torch.no_grad():
    ng = clf(x, torch.full((2,), 5))
print("no_grad output is normal:", ng.is_inference(), ng.requires_grad)

"""torch.compile as diffusion repos apply it: a compiled denoiser (mode="reduce-overhead", fullgraph, dynamic=False)
checked against eager, a compiled sampler step whose Python float timestep changes every call, recompilation on a
new batch size, torch.compiler.disable around a logging helper, a compiled loss with backward, and
torch._dynamo.reset."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=4):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


class Denoiser(nn.Module):
    def __init__(self, ch=3, hidden=8):
        super().__init__()
        self.inp = nn.Conv2d(ch, hidden, 3, padding=1)
        self.norm = nn.GroupNorm(2, hidden)
        self.t_proj = nn.Linear(1, hidden)
        self.out = nn.Conv2d(hidden, ch, 3, padding=1)

    def forward(self, x, t):
        h = self.inp(x) + self.t_proj(t.view(-1, 1).float())[:, :, None, None]
        return self.out(F.silu(self.norm(h)))


net = Denoiser()
with torch.no_grad():
    for k, p in enumerate(net.parameters()):
        p.copy_(0.25 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.43 + k).view_as(p))
net.eval()
compiled = torch.compile(net, mode="reduce-overhead", fullgraph=True, dynamic=False)
print("wrapper:", type(compiled).__name__, compiled._orig_mod is net, isinstance(compiled, nn.Module))
print("state_dict keys prefixed:", list(compiled.state_dict())[:2])

x = torch.randn(2, 3, 6, 6)
t = torch.tensor([0.3, 0.7])
with torch.no_grad():
    e_eager = net(x, t)
    e_comp = compiled(x, t)
print("compiled == eager:", torch.allclose(e_eager, e_comp, atol=1e-5), r(e_comp))


@torch.compile
def ddim_step(x, eps, a_t: float, a_prev: float):
    x0 = (x - (1 - a_t) ** 0.5 * eps) / a_t ** 0.5
    return a_prev ** 0.5 * x0 + (1 - a_prev) ** 0.5 * eps


alphas = torch.linspace(0.1, 0.99, 6).tolist()
xs = x.clone()
with torch.no_grad():
    for i in range(5):
        eps = compiled(xs, torch.full((2,), 1 - alphas[i]))
        xs = ddim_step(xs, eps, alphas[i], alphas[i + 1])
print("sampled:", r(xs), round(xs.std().item(), 4))
ref = x.clone()
with torch.no_grad():
    for i in range(5):
        eps = net(ref, torch.full((2,), 1 - alphas[i]))
        x0 = (ref - (1 - alphas[i]) ** 0.5 * eps) / alphas[i] ** 0.5
        ref = alphas[i + 1] ** 0.5 * x0 + (1 - alphas[i + 1]) ** 0.5 * eps
print("matches eager loop:", torch.allclose(xs, ref, atol=1e-5))

with torch.no_grad():
    big = compiled(torch.randn(5, 3, 6, 6), torch.rand(5))
print("new batch size:", tuple(big.shape))

logged = []


@torch.compiler.disable
def log_stats(t):
    logged.append(round(t.abs().mean().item(), 4))


@torch.compile
def loss_fn(pred, target, w):
    l = (w.view(-1, 1, 1, 1) * (pred - target) ** 2).mean()
    log_stats(l)
    return l


net.train()
pred = net(x, t)
loss = loss_fn(pred, torch.zeros_like(pred), torch.tensor([1.0, 0.5]))
loss.backward()
print("compiled loss:", round(loss.item(), 4), loss.grad_fn is not None, "logged:", logged)
print("grad:", round(net.out.weight.grad.norm().item(), 4))

opt_step = torch.compile(lambda a, b: torch.lerp(a, b, 0.1))
print("compiled lambda:", r(opt_step(torch.zeros(3), torch.ones(3)), 3))
torch._dynamo.reset()
print("backends include inductor:", "inductor" in torch._dynamo.list_backends())
try:
    torch.compile(net, mode="fastest")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.compile(net, backend="no_such_backend")(x, t)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:60])

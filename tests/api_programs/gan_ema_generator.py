"""Generator EMA as StyleGAN/BigGAN code keeps it: a deepcopy with requires_grad_(False) and eval(), lerp_ over
parameters with a ramped beta, buffers copied (BatchNorm statistics, num_batches_tracked), torch._foreach_lerp_ and
_foreach_mul_/add_, EMA of a spectral-normalised generator, state_dict round trips, and the errors of mismatched
updates."""

import copy
import io

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8, bias=False)
        self.bn = nn.BatchNorm1d(8)
        self.out = nn.utils.parametrizations.spectral_norm(nn.Linear(8, 3))

    def forward(self, z):
        return torch.tanh(self.out(F.relu(self.bn(self.fc(z)))))


g = G()
g_ema = copy.deepcopy(g).eval().requires_grad_(False)
print(
    "ema requires_grad", any(p.requires_grad for p in g_ema.parameters()), "training", g_ema.training, g_ema.bn.training
)
print("same values", all(torch.equal(a, b) for a, b in zip(g.parameters(), g_ema.parameters())))
print("distinct storage", g.fc.weight.data_ptr() != g_ema.fc.weight.data_ptr())
print("param names", [n for n, _ in g_ema.named_parameters()])
print("buffer names", [n for n, _ in g_ema.named_buffers()])

opt = torch.optim.Adam(g.parameters(), lr=1e-2, betas=(0.0, 0.99))


@torch.no_grad()
def accumulate(ema, model, beta):
    for p_ema, p in zip(ema.parameters(), model.parameters()):
        p_ema.copy_(p.lerp(p_ema, beta))
    for b_ema, b in zip(ema.buffers(), model.buffers()):
        b_ema.copy_(b)


ema_kimg, batch = 0.01, 4
for step in range(5):
    z = torch.randn(batch, 4)
    loss = g(z).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema_nimg = min(ema_kimg * 1000, (step + 1) * batch * 0.5)
    beta = 0.5 ** (batch / max(ema_nimg, 1e-8))
    accumulate(g_ema, g, beta)
    print(
        "step",
        step,
        round(loss.item(), 4),
        "beta",
        round(beta, 4),
        "gap",
        round((g.fc.weight - g_ema.fc.weight).abs().sum().item(), 4),
    )

print(
    "bn copied",
    torch.equal(g.bn.running_mean, g_ema.bn.running_mean),
    g_ema.bn.num_batches_tracked.item(),
    g_ema.bn.num_batches_tracked.dtype,
)
print("sn u copied", torch.equal(g.out.parametrizations.weight[0]._u, g_ema.out.parametrizations.weight[0]._u))
zs = torch.randn(2, 4)
print("ema sample", g_ema(zs).round(decimals=4).tolist())
print("ema grad_fn", g_ema(zs).grad_fn)

# In-place lerp_ with a scalar and a tensor weight; the _foreach variants.
ema2 = [p.detach().clone() for p in g.parameters()]
with torch.no_grad():
    for e, p in zip(ema2, g.parameters()):
        e.lerp_(p, 0.1)
ema3 = [p.detach().clone() for p in g.parameters()]
torch._foreach_lerp_(ema3, [p.detach() for p in g.parameters()], 0.1)
print("foreach lerp", all(torch.allclose(a, b) for a, b in zip(ema2, ema3)))
ema4 = [p.detach().clone() for p in g.parameters()]
torch._foreach_mul_(ema4, 0.9)
torch._foreach_add_(ema4, [p.detach() for p in g.parameters()], alpha=0.1)
print("foreach mul/add", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ema2, ema4)))
w = torch.tensor([0.0, 0.5, 1.0])
print("tensor weight", torch.zeros(3).lerp_(torch.ones(3), w).tolist())

# Swap weights in for evaluation and restore (store/restore).
backup = {k: v.clone() for k, v in g.state_dict().items()}
g.load_state_dict(g_ema.state_dict())
print("swapped", torch.equal(g.fc.weight, g_ema.fc.weight))
g.load_state_dict(backup)
print("restored", torch.equal(g.fc.weight, backup["fc.weight"]))

buf = io.BytesIO()
torch.save({"G": g.state_dict(), "G_ema": g_ema.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
fresh = G()
print(fresh.load_state_dict(ck["G_ema"]))
print("keys", len(ck["G_ema"]), sorted(ck["G_ema"])[:3])

# Errors.
try:
    with torch.no_grad():
        g_ema.fc.weight.lerp_(g.fc.weight, torch.tensor([0.5, 0.5]))
except Exception as e:
    print(type(e).__name__, e)
try:
    g.fc.weight.lerp_(g.fc.weight.detach(), 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch._foreach_lerp_(ema3, ema3[:2], 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    fresh.load_state_dict({k: v for k, v in ck["G_ema"].items() if "bn" not in k})
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])

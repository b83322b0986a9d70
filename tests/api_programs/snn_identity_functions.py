"""Identity-forward Functions around spiking layers (gradient scaling, gradient reversal, straight-through),
and what PyTorch does with the views they return."""
import torch

nn = torch.nn
F = torch.nn.functional


class GradScale(torch.autograd.Function):
    """Forward as-is, backward scaled: balances gradients of spiking layers with very different fan-in."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam=1.0):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -ctx.lam * g, None


torch.manual_seed(0)
enc = nn.Linear(4, 6)
head = nn.Linear(6, 2)
critic = nn.Linear(6, 1)
x = torch.randn(8, 4)
y = torch.randint(0, 2, (8,))
dom = torch.rand(8, 1)

h = enc(x)
hs = GradScale.apply(h, 0.1)
print("as-is output", hs is h, hs._base is h, hs._is_view(), hs.grad_fn.name(), hs.requires_grad)
hr = GradReverse.apply(h, lam=0.5)
print("view_as output", hr._base is h, hr.grad_fn.name())
loss = F.cross_entropy(head(hs), y) + F.mse_loss(critic(hr), dom)
loss.backward()
print("loss", round(loss.item(), 4))
print("enc grad", enc.weight.grad.round(decimals=4).tolist()[0], enc.bias.grad.round(decimals=4).tolist())

# the same with explicit scaling, to check the custom backward
enc.zero_grad()
h2 = enc(x)
l_head = F.cross_entropy(head(h2), y)
l_crit = F.mse_loss(critic(h2), dom)
g_head = torch.autograd.grad(l_head, enc.bias, retain_graph=True)[0]
g_crit = torch.autograd.grad(l_crit, enc.bias)[0]
print("expected bias grad", (0.1 * g_head - 0.5 * g_crit).round(decimals=4).tolist())

# writing into the returned view is refused (with grad), allowed without
h = enc(x)
out = GradScale.apply(h, 2.0)
for op in (lambda: out.add_(1), lambda: GradReverse.apply(h).relu_()):
    try:
        op()
    except Exception as e:
        print(type(e).__name__, str(e)[:150])
with torch.no_grad():
    out.mul_(1.0)
print("no_grad write ok", out._version)

# writing the base afterwards makes the view's history unusable
h = enc(x) * 1
out = GradScale.apply(h, 2.0)
h.mul_(2)
try:
    out.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:160])
h = enc(x) * 1
out = GradScale.apply(h, 2.0).clone()
h.mul_(2)
out.sum().backward()
print("cloned ok", enc.bias.grad.round(decimals=4).tolist())

# a straight-through spike whose forward returns the input of a no-grad branch
class PassNoGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem, spikes):
        ctx.mark_non_differentiable(spikes)
        return mem, spikes

    @staticmethod
    def backward(ctx, g_mem, g_spk):
        return g_mem, None


m = enc(x)
s = (m > 0).float()
m2, s2 = PassNoGrad.apply(m, s)
print(m2._base is m, s2.requires_grad, s2.grad_fn, s2 is s)

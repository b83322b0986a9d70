"""Custom autograd Functions under autocast as library code writes them: torch.amp.custom_fwd(device_type='cpu')
running the forward in the surrounding autocast state, custom_fwd(cast_inputs=torch.float32) forcing a float32
forward with autocast off inside, custom_bwd replaying the forward's autocast state in backward, ctx.save_for_backward
of reduced-precision tensors, a fused linear+GELU Function checked against the module path, and
torch.autocast as a decorator on forward methods."""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.amp import custom_bwd, custom_fwd

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

seen = []


class ScaledMatmul(torch.autograd.Function):
    """Runs in whatever autocast says; records what it saw in forward and backward."""

    @staticmethod
    @custom_fwd(device_type="cpu")
    def forward(ctx, a, b, scale):
        seen.append(("fwd", torch.is_autocast_enabled("cpu"), a.dtype, b.dtype))
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return torch.mm(a, b) * scale

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        seen.append(("bwd", torch.is_autocast_enabled("cpu"), grad.dtype, a.dtype))
        ga = torch.mm(grad, b.t()) * ctx.scale
        gb = torch.mm(a.t(), grad) * ctx.scale
        return ga, gb, None


class Float32Softplus(torch.autograd.Function):
    """Numerically touchy: forced to float32 whatever the caller's autocast dtype."""

    @staticmethod
    @custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, x, beta):
        seen.append(("fp32 fwd", torch.is_autocast_enabled("cpu"), x.dtype))
        ctx.save_for_backward(x)
        ctx.beta = beta
        return torch.log1p(torch.exp(beta * x)) / beta

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        seen.append(("fp32 bwd", torch.is_autocast_enabled("cpu"), grad.dtype))
        return grad * torch.sigmoid(ctx.beta * x), None


class FusedLinearGelu(torch.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cpu")
    def forward(ctx, x, weight, bias):
        h = F.linear(x, weight, bias)
        ctx.save_for_backward(x, weight, h)
        return F.gelu(h)

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        x, weight, h = ctx.saved_tensors
        hf = h.float()
        cdf = 0.5 * (1 + torch.erf(hf / math.sqrt(2)))
        pdf = torch.exp(-0.5 * hf * hf) / math.sqrt(2 * math.pi)
        gh = (grad.float() * (cdf + hf * pdf)).to(h.dtype)
        gx = gh.to(weight.dtype) @ weight if x.dtype == weight.dtype else (gh @ weight.to(gh.dtype)).to(x.dtype)
        gw = gh.t().to(x.dtype) @ x
        return gx.to(x.dtype), gw.to(weight.dtype), gh.sum(0).to(weight.dtype)


a = torch.randn(4, 5, requires_grad=True)
b = torch.randn(5, 3, requires_grad=True)

# outside autocast: plain float32
out = ScaledMatmul.apply(a, b, 0.5)
out.sum().backward()
print("plain:", out.dtype, out.grad_fn.__class__.__name__, round(out.sum().item(), 4))
print("  grads", a.grad.dtype, round(a.grad.sum().item(), 4), round(b.grad.sum().item(), 4))

# inside autocast: the forward sees autocast on, mm runs in bfloat16; backward replays that state
a.grad = b.grad = None
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = ScaledMatmul.apply(a, b, 0.5)
print("autocast:", out.dtype, out[0])
out.float().sum().backward()
print("  grads", a.grad.dtype, a.grad[0], b.grad.dtype)

# cast_inputs: bfloat16 inputs arrive as float32, autocast is off inside, result float32
xb = (torch.randn(6) * 4).bfloat16().requires_grad_()
with torch.autocast("cpu", dtype=torch.bfloat16):
    sp = Float32Softplus.apply(xb, 2.0)
    sp_mod = F.softplus(xb.float(), beta=2.0)
print("softplus:", sp.dtype, sp)
print("reference:", sp_mod)
sp.sum().backward()
print("  x grad", xb.grad.dtype, xb.grad)

# cast_inputs outside autocast does nothing: inputs keep their dtype
sp64 = Float32Softplus.apply(torch.tensor([-1.0, 0.0, 3.0], dtype=torch.float64), 1.0)
print("outside:", sp64.dtype, sp64)

for entry in seen:
    print("seen", *entry)
seen.clear()

# a fused Function against the module path, in float32 and under autocast
lin = nn.Linear(8, 6)
x = torch.randn(5, 8, requires_grad=True)
ref = F.gelu(lin(x))
ref.pow(2).sum().backward()
ref_grads = [t.grad.clone() for t in (x, lin.weight, lin.bias)]
for t in (x, lin.weight, lin.bias):
    t.grad = None
fused = FusedLinearGelu.apply(x, lin.weight, lin.bias)
fused.pow(2).sum().backward()
print("fused == module:", torch.allclose(fused, ref, atol=1e-6),
      [torch.allclose(t.grad, g, atol=1e-5) for t, g in zip((x, lin.weight, lin.bias), ref_grads)])
for t in (x, lin.weight, lin.bias):
    t.grad = None
with torch.autocast("cpu", dtype=torch.bfloat16):
    fused_bf = FusedLinearGelu.apply(x, lin.weight, lin.bias)
    mod_bf = F.gelu(lin(x))
print("autocast fused:", fused_bf.dtype, mod_bf.dtype, round((fused_bf.float() - mod_bf.float()).abs().max().item(), 4))
fused_bf.float().pow(2).sum().backward()
print("  grads dtypes", x.grad.dtype, lin.weight.grad.dtype, lin.bias.grad.dtype)
print("  bias grad", lin.bias.grad)
print("  vs fp32 bias grad", ref_grads[2])


# torch.autocast as a decorator on a forward method
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 3)

    @torch.autocast("cpu", dtype=torch.bfloat16)
    def forward(self, h):
        return self.proj(h).log_softmax(-1)


head = Head()
h = torch.randn(2, 6)
lp = head(h)
print("decorated forward:", lp.dtype, torch.is_autocast_enabled("cpu"))
print(lp)

# custom_fwd without device_type is a TypeError in torch.amp
try:
    custom_fwd(lambda ctx, t: t)
except TypeError as e:
    print("TypeError:", e)

"""torch.autograd.forward_ad: dual_level, make_dual, unpack_dual, forward mode through nn modules, and its errors."""

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


x = torch.randn(4)
v = torch.randn(4)

with fwAD.dual_level():
    dual = fwAD.make_dual(x, v)
    out = torch.sin(dual) * dual.exp() + dual ** 2
    p, t = fwAD.unpack_dual(out)
    print("primal", p)
    print("tangent", t)
    print("analytic", (torch.cos(x) * x.exp() + torch.sin(x) * x.exp() + 2 * x) * v)
    unpacked = fwAD.unpack_dual(out)
    print("namedtuple", type(unpacked).__name__, unpacked._fields)
    print("plain tensor tangent", fwAD.unpack_dual(x).tangent)

# tangents through reductions, matmul, softmax and losses
W = torch.randn(3, 4)
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    logits = W @ d
    probs = F.softmax(logits, dim=0)
    loss = F.cross_entropy(logits.unsqueeze(0), torch.tensor([1]))
    print("softmax jvp", fwAD.unpack_dual(probs).tangent)
    print("loss jvp", round(fwAD.unpack_dual(loss).tangent.item(), 4))
    print("norm jvp", round(fwAD.unpack_dual(d.norm()).tangent.item(), 4), round((x @ v / x.norm()).item(), 4))

# forward mode through a module: swap parameters for duals via functional_call
model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))
inp = torch.randn(3, 4)
params = {name: p.detach() for name, p in model.named_parameters()}
tangents = {name: torch.randn_like(p) for name, p in params.items()}
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = functional_call(model, dual_params, (inp,))
    jvp_params = fwAD.unpack_dual(out).tangent
print("param-jvp", jvp_params)
# check against torch.func.jvp
_, ref = torch.func.jvp(lambda ps: functional_call(model, ps, (inp,)), (params,), (tangents,))
print("matches func.jvp", torch.allclose(jvp_params, ref, atol=1e-6))

# input-direction derivative through a conv layer
conv = nn.Conv1d(2, 3, 3, padding=1)
sig = torch.randn(1, 2, 6)
direction = torch.zeros_like(sig)
direction[0, 0, 2] = 1.0
with fwAD.dual_level():
    y = conv(fwAD.make_dual(sig, direction))
    col = fwAD.unpack_dual(y).tangent
print("conv response", col[0, :, 1:4])
print("tangent depends on the weight", col.requires_grad)
col.sum().backward()
print("d(sum of tangent)/d weight", conv.weight.grad[:, 0], conv.bias.grad)

# a directional derivative estimate: forward gradient (Baydin et al.) with a seeded direction
def f(w):
    return ((w - 1.0) ** 2).sum() + w.prod()


w = torch.tensor([0.2, -0.4, 0.9])
true_grad = torch.func.grad(f)(w)
est = torch.zeros(3)
for k in range(4):
    u = torch.randn(3)
    with fwAD.dual_level():
        dd = fwAD.unpack_dual(f(fwAD.make_dual(w, u))).tangent
    est += dd * u
print("true grad", true_grad)
print("forward-gradient estimate", est / 4)

# nested levels are not supported; errors
def nested():
    with fwAD.dual_level():
        with fwAD.dual_level():
            pass


show("nested levels", nested)
show("make_dual outside", lambda: fwAD.make_dual(x, v))


def bad_shape():
    with fwAD.dual_level():
        return fwAD.make_dual(x, torch.ones(3))


def bad_dtype():
    with fwAD.dual_level():
        dd = fwAD.make_dual(x, torch.ones(4, dtype=torch.float64))
        return dd.dtype, fwAD.unpack_dual(dd).tangent.dtype


def int_primal():
    with fwAD.dual_level():
        return fwAD.make_dual(torch.arange(3), torch.ones(3))


show("bad shape", bad_shape)
show("bad dtype", bad_dtype)
show("int primal", int_primal)

# the tangent disappears when the level exits
with fwAD.dual_level():
    kept = fwAD.make_dual(x, v) * 2
print("after exit", fwAD.unpack_dual(kept).tangent)

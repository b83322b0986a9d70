"""The forward-mode AD tutorial: dual tensors with make_dual/unpack_dual inside dual_level, the UnpackedDualTensor
namedtuple, forward AD through nn.Module via functional_call and tangents on parameters, a custom Function with a
jvp staticmethod (and gradcheck with check_forward_ad), torch.func.jvp / linearize / jacfwd against jacrev, and the
errors of tangents with a wrong shape or dual tensors outside a level."""

import numpy as np
import torch
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call, jacfwd, jacrev, jvp, linearize, vmap
import torch.nn as nn

rng = np.random.default_rng(3)


def T(*shape, dtype=np.float32):
    return torch.from_numpy(rng.standard_normal(shape).astype(dtype))


def r(t):
    return np.round(t.detach().double().numpy(), 4).tolist()


primal = T(10, 10)
tangent = T(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print("is dual", fwAD.unpack_dual(dual_input).tangent is tangent)
    plain_tensor = torch.ones(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp_out = fwAD.unpack_dual(dual_output)
    print(type(jvp_out).__name__, jvp_out._fields)
    print("tangent ok", torch.allclose(jvp_out.tangent, 2 * primal * tangent))
    print("primal ok", torch.allclose(jvp_out.primal, primal ** 2 + 1))
    p, t = fwAD.unpack_dual(dual_output)
    print("unpacked", tuple(p.shape), tuple(t.shape), fwAD.unpack_dual(plain_tensor).tangent)
    # elementwise functions, reductions and matmul carry tangents
    z = torch.tanh(dual_input[:2, :3]).sum(dim=1) @ torch.ones(2)
    dz = fwAD.unpack_dual(z).tangent
    expect = ((1 - torch.tanh(primal[:2, :3]) ** 2) * tangent[:2, :3]).sum()
    print("tanh-sum tangent", round(dz.item(), 4), torch.allclose(dz, expect, atol=1e-5))
print("after level", fwAD.unpack_dual(dual_output).tangent)

# forward AD with modules: parameters become dual tensors
model = nn.Linear(5, 5)
with torch.no_grad():
    model.weight.copy_(T(5, 5) * 0.3)
    model.bias.copy_(T(5) * 0.1)
inp = T(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
tangents = {name: T(*p.shape) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(inp)
    jvp_mod = fwAD.unpack_dual(out).tangent
print("module jvp", tuple(jvp_mod.shape), r(jvp_mod[0]))
print("manual", torch.allclose(jvp_mod, inp @ tangents["weight"].T + tangents["bias"], atol=1e-5))

model2 = nn.Linear(5, 5)
with torch.no_grad():
    model2.weight.copy_(params["weight"])
    model2.bias.copy_(params["bias"])
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p.detach(), tangents[name]) for name, p in model2.named_parameters()}
    out2 = functional_call(model2, dual_params, inp)
    jvp2 = fwAD.unpack_dual(out2).tangent
print("functional_call jvp", torch.allclose(jvp2, jvp_mod, atol=1e-6))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # tensors stored in ctx can be used in the forward-mode computation
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # if gI is a tensor the jvp returns it, for the backward it is deleted
        del ctx.result
        return gO


fn_apply = Fn.apply
primal = T(10, 10, dtype=np.float64).requires_grad_()
tangent = T(10, 10, dtype=np.float64)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn_apply(dual_input)
    jvp_output = fwAD.unpack_dual(dual_output).tangent
print("custom jvp", torch.allclose(jvp_output, tangent * primal.exp()))
print("gradcheck", torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                                            check_undefined_grad=False, check_batched_grad=False))

# functional API
x = T(10)
t = T(10)


def f(x):
    return x.sin().sum() + (x ** 3).mean()


primal_out, tangent_out = jvp(f, (x,), (t,))
print("func.jvp", round(primal_out.item(), 4), round(tangent_out.item(), 4))
print("matches", torch.allclose(tangent_out, (x.cos() + 3 * x ** 2 / 10) @ t, atol=1e-5))
out, jvp_fn = linearize(torch.sin, x)
print("linearize", torch.allclose(jvp_fn(t), x.cos() * t), torch.allclose(out, x.sin()))


def g(x, y):
    return torch.stack([x[0] * y[1], x[1].exp() + y[0], (x * y).sum()])


a, b = T(3, dtype=np.float64), T(3, dtype=np.float64)
jf = jacfwd(g, argnums=(0, 1))(a, b)
jr = jacrev(g, argnums=(0, 1))(a, b)
print("jacfwd shapes", [tuple(j.shape) for j in jf], all(torch.allclose(u, v) for u, v in zip(jf, jr)))
print(r(jf[0]))
batched = vmap(jacfwd(torch.sin))(T(4, 3))
print("vmap jacfwd", tuple(batched.shape), bool((batched[0] - torch.diag(torch.diagonal(batched[0]))).abs().max() == 0))

# jvp of a multi-output function, tangents of the wrong shape
out, tan = jvp(lambda u: (u * 2, u.sum()), (x,), (t,))
print("tuple out", [tuple(o.shape) for o in out], round(tan[1].item(), 4))
try:
    jvp(f, (x,), (torch.ones(3),))
except Exception as e:
    print(type(e).__name__, e)
try:
    jvp(f, x, (t,))
except Exception as e:
    print(type(e).__name__, e)
try:
    fwAD.make_dual(x, t)
except Exception as e:
    print(type(e).__name__, e)
with fwAD.dual_level():
    try:
        fwAD.make_dual(x, torch.ones(3))
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

"""torch.func: vmap, grad, jacrev, jacfwd, hessian, functional_call, per-sample grads."""

import numpy as np
import torch
from torch import nn
from torch.func import (
    vmap,
    grad,
    jacrev,
    jacfwd,
    hessian,
    functional_call,
    grad_and_value,
    vjp,
    jvp,
    stack_module_state,
)

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


f = lambda x: torch.sin(x).sum()
x = T(3)
print("grad", r(grad(f)(x)), r(torch.cos(x)))
print("vmap", r(vmap(torch.dot)(T(4, 3), T(4, 3))))
print("vmap_in_dims", vmap(lambda a, b: a * b, in_dims=(0, None))(T(4, 3), T(3)).shape)
print("vmap_out", vmap(lambda a: a.sum(0), in_dims=1, out_dims=0)(T(3, 5)).shape)
print("jacrev", r(jacrev(torch.sin)(x)))
print("jacfwd", r(jacfwd(lambda t: t**2)(x)))
print("hessian", r(hessian(lambda t: (t**3).sum())(x)))
g, v = grad_and_value(lambda t: (t**2).sum())(x)
print("gv", r(g), round(v.item(), 4))
out, fn = vjp(torch.exp, x)
print("vjp", r(fn(torch.ones(3))[0]))
print("jvp", [r(t) for t in jvp(torch.exp, (x,), (torch.ones(3),))])
model = nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(T(2, 3))
    model.bias.copy_(T(2))
params = {k: v.detach() for k, v in model.named_parameters()}
X = T(5, 3)
Y = T(5, 2)


def loss(p, xb, yb):
    out = functional_call(model, p, (xb.unsqueeze(0),))
    return ((out - yb.unsqueeze(0)) ** 2).mean()


ps = vmap(grad(loss), in_dims=(None, 0, 0))(params, X, Y)
print("per_sample", ps["weight"].shape, r(ps["weight"][0]))
print("functional_call", r(functional_call(model, params, X)))
models = [nn.Linear(3, 2) for _ in range(4)]
p_, b_ = stack_module_state(models)
print("stack", p_["weight"].shape)
print("nested", r(vmap(jacrev(torch.sin))(T(2, 3))))
print("grad_argnums", [r(t) for t in grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x * 2)])
print("has_aux", r(grad(lambda a: ((a**2).sum(), a.mean()), has_aux=True)(x)[1]))
print("vmap_randomness", vmap(lambda t: t + torch.rand(()), randomness="different")(T(3)).shape)
print("OK")

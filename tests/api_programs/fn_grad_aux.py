"""torch.func.grad / grad_and_value as JAX-style code writes them: has_aux, argnums tuples, nesting, errors."""

import torch
from torch.func import grad, grad_and_value, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def rd(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def loss_fn(w, b, x, y):
    pred = x @ w + b
    err = pred - y
    loss = (err ** 2).mean()
    return loss, {"pred": pred, "max_err": err.abs().max()}


x = torch.randn(6, 3)
y = torch.randn(6)
w = torch.randn(3)
b = torch.tensor(0.5)

# grad w.r.t. the first argument only
g_w, aux = grad(loss_fn, has_aux=True)(w, b, x, y)
print("g_w", rd(g_w))
print("aux keys", sorted(aux), "max_err", round(aux["max_err"].item(), 4))
print("aux pred requires_grad", aux["pred"].requires_grad)

# argnums tuple: a tuple of grads
(g_w2, g_b), aux = grad(loss_fn, argnums=(0, 1), has_aux=True)(w, b, x, y)
print("g_w == g_w2", torch.allclose(g_w, g_w2), "g_b", round(g_b.item(), 4))

# grad_and_value with has_aux returns (grads, (value, aux))
grads, (value, aux) = grad_and_value(loss_fn, argnums=(0, 1), has_aux=True)(w, b, x, y)
print("value", round(value.item(), 4), "grads", [g.shape for g in grads])

# compare with autograd
w_ = w.clone().requires_grad_()
b_ = b.clone().requires_grad_()
ref = ((x @ w_ + b_ - y) ** 2).mean()
ref.backward()
print("matches autograd", torch.allclose(w_.grad, g_w, atol=1e-6), torch.allclose(b_.grad, g_b, atol=1e-6))

# pytree inputs: a dict of params
params = {"w": w, "b": b}


def dict_loss(p, x, y):
    return ((x @ p["w"] + p["b"] - y) ** 2).mean()


gp = grad(dict_loss)(params, x, y)
print("dict grads", {k: rd(v) for k, v in sorted(gp.items())})

# nested grad: second derivative of a scalar function
f = lambda t: torch.sin(t) * t ** 2
t0 = torch.tensor(1.3)
d1 = grad(f)(t0)
d2 = grad(grad(f))(t0)
d3 = grad(grad(grad(f)))(t0)
print("derivs", round(d1.item(), 4), round(d2.item(), 4), round(d3.item(), 4))

# vmap(grad) for elementwise derivatives
ts = torch.linspace(-2, 2, 5)
print("vmap grad", rd(vmap(grad(f))(ts)))
print("vmap grad grad", rd(vmap(grad(grad(f)))(ts)))

# tanh' = 1 - tanh^2
print("tanh'", rd(vmap(grad(torch.tanh))(ts)), rd(1 - torch.tanh(ts) ** 2))

# grad of a function with a closed-over tensor that requires grad
scale = torch.tensor(2.0, requires_grad=True)
g = grad(lambda t: (scale * t ** 3).sum())(torch.tensor([1.0, 2.0]))
print("closure grad", rd(g), "requires_grad", g.requires_grad)
g.sum().backward()
print("scale.grad", round(scale.grad.item(), 4))

# grad with keyword arguments (not differentiated)
def kw_loss(w, x, *, reg=0.0):
    return (x @ w).pow(2).mean() + reg * w.pow(2).sum()


print("kw reg=0", rd(grad(kw_loss)(w, x)))
print("kw reg=1", rd(grad(kw_loss)(w, x, reg=1.0)))

# misuse: caught and printed
def show(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


show("non-scalar", lambda: grad(lambda t: t * 2)(torch.ones(3)))
show("aux not tuple", lambda: grad(lambda t: t.sum(), has_aux=True)(torch.ones(3)))
show("argnums oob", lambda: grad(lambda a, b: (a * b).sum(), argnums=2)(torch.ones(2), torch.ones(2)))
show("int input", lambda: grad(lambda a: a.sum())(torch.tensor([1, 2])))
show("argnums float", lambda: grad(lambda a: a.sum(), argnums=0.5)(torch.ones(2)))
show("empty argnums", lambda: grad(lambda a: a.sum(), argnums=())(torch.ones(2)))
show("list output", lambda: grad(lambda a: [a.sum()])(torch.ones(2)))

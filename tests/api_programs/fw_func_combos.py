"""torch.func transforms composed as research code composes them: vmap with in_dims tuples/None/nested dicts,
out_dims, chunk_size and randomness; grad with argnums and has_aux; jacrev/jacfwd with chunk_size and argnums
tuples; hessian of a loss in a model's parameters via functional_call; vmap over jacrev for batched Jacobians;
jvp/vjp/linearize; and the errors of bad in_dims and non-scalar grad."""

import torch
from torch import nn
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap

torch.set_printoptions(precision=4)


def det(*shape, k=0.7, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=dtype) * k + 0.3).reshape(shape)


# vmap: in_dims, out_dims, pytree inputs and outputs
A = det(3, 4)
xs = det(5, 4, k=1.3)
f = lambda a, x: a @ x  # noqa: E731
print("vmap in_dims=(None, 0)", vmap(f, in_dims=(None, 0))(A, xs).shape)
print("vmap out_dims=1", vmap(f, in_dims=(None, 0), out_dims=1)(A, xs).shape)
print("vmap x along dim 1", vmap(f, in_dims=(None, 1))(A, xs.t()).shape,
      torch.allclose(vmap(f, in_dims=(None, 1))(A, xs.t()), xs @ A.t()))


def step(state, scale):
    return {"pos": state["pos"] + scale * state["vel"], "vel": state["vel"] * 0.9}, scale.sum()


state = {"pos": det(6, 2), "vel": det(6, 2, k=0.2)}
new, tot = vmap(step, in_dims=({"pos": 0, "vel": 0}, None))(state, torch.tensor([0.5, 2.0]))
print("dict in/out", new["pos"][:2], new["vel"].shape, tot)
outs = vmap(lambda x: (x.sum(), x * 2), out_dims=(0, 1))(det(3, 4))
print("tuple out_dims", outs[0], outs[1].shape)
print("chunk_size", torch.equal(vmap(torch.outer, chunk_size=2)(det(5, 3), det(5, 4)),
                                vmap(torch.outer)(det(5, 3), det(5, 4))))
print("nested vmap", vmap(vmap(torch.dot, in_dims=(0, None)), in_dims=(None, 0))(det(3, 4), det(2, 4)).shape)
print("vmap randomness='same'", vmap(lambda x: torch.rand(()) * 0 + x, randomness="same")(torch.ones(3)))
try:
    vmap(lambda x: x + torch.rand(()))(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", str(e)[:90])
try:
    vmap(f, in_dims=(None, 0))(A, det(4))
except RuntimeError as e:
    print("RuntimeError:", str(e)[:95])
try:
    vmap(torch.add, in_dims=(0, 0))(det(3, 2), det(4, 2))
except ValueError as e:
    print("ValueError:", str(e)[:95])
try:
    vmap(f, in_dims=(0,))(A, xs)
except ValueError as e:
    print("ValueError:", str(e)[:95])

# grad: argnums, has_aux, grad_and_value


def loss(w, b, x, y):
    pred = x @ w + b
    err = pred - y
    return (err ** 2).mean(), {"max_err": err.abs().max()}


w, b = det(4, k=0.4), torch.tensor(0.2)
x, y = det(8, 4, k=0.9), det(8, k=2.1)
gw, aux = grad(loss, has_aux=True)(w, b, x, y)
print("grad w", gw, "aux", {k: round(v.item(), 4) for k, v in aux.items()})
(gw2, gb2), aux2 = grad(loss, argnums=(0, 1), has_aux=True)(w, b, x, y)
print("argnums (0,1)", gb2, torch.equal(gw, gw2))
(g, (val, aux3)) = grad_and_value(loss, has_aux=True)(w, b, x, y)
print("grad_and_value", round(val.item(), 4), torch.allclose(g, gw))
print("per-example grads", vmap(grad(lambda w, xi, yi: loss(w, b, xi[None], yi[None])[0]),
                               in_dims=(None, 0, 0))(w, x, y)[:2])
try:
    grad(lambda t: t * 2)(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", str(e)[:100])

# jacobians
def g(x, y):
    return torch.stack([x[0] * y[1], x[1].sin() + y[0] ** 2, (x * y).sum()])


xv = torch.tensor([0.3, -1.2], dtype=torch.float64)
yv = torch.tensor([2.0, 0.5], dtype=torch.float64)
jx, jy = jacrev(g, argnums=(0, 1))(xv, yv)
print("jacrev", jx, jy, sep="\n")
jfx, jfy = jacfwd(g, argnums=(0, 1))(xv, yv)
print("jacfwd agrees", torch.allclose(jx, jfx), torch.allclose(jy, jfy))
print("jacrev chunk_size=1", torch.equal(jacrev(g, chunk_size=1)(xv, yv), jx))
print("batched jacobians", vmap(jacrev(torch.sin))(det(3, 2, dtype=torch.float64)).shape)
print("jacrev dict input", {k: v.shape for k, v in jacrev(lambda d: d["a"] * d["b"].sum())(
    {"a": torch.ones(2), "b": torch.ones(3)}).items()})

# hessian of a loss wrt model parameters via functional_call
net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)).double()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(det(*p.shape, k=0.5 + i, dtype=torch.float64))
params = {k: v.detach() for k, v in net.named_parameters()}
data = det(4, 2, dtype=torch.float64)


def param_loss(p):
    return functional_call(net, p, (data,)).pow(2).mean()


H = hessian(param_loss)(params)
print("hessian keys", list(H), list(H["2.bias"]))
print("H[0.bias][0.bias]", H["0.bias"]["0.bias"])
print("H[2.weight][2.bias]", H["2.weight"]["2.bias"].shape, H["2.weight"]["2.bias"].flatten())
print("hessian(f) == jacfwd(jacrev(f))", torch.allclose(hessian(lambda t: t.sin().sum())(xv),
                                                        jacfwd(jacrev(lambda t: t.sin().sum()))(xv)))

# jvp / vjp / linearize
out, tangent = jvp(torch.sin, (xv,), (torch.ones(2, dtype=torch.float64),))
print("jvp", out, tangent)
out, vjp_fn = vjp(g, xv, yv)
print("vjp", vjp_fn(torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)))
out, jvp_fn = linearize(torch.exp, xv)
print("linearize", jvp_fn(torch.tensor([1.0, 2.0], dtype=torch.float64)))

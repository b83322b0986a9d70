"""Ensembles of PINNs and per-point derivatives in torch.func: stack_module_state + functional_call under vmap,
jacrev with has_aux and chunk_size, jvp/linearize for directional derivatives, vmap with out_dims and nested in_dims,
grad_and_value with has_aux for the training step, and the errors these transforms raise."""

import copy

import torch
from torch.func import functional_call, grad_and_value, jacrev, jvp, linearize, stack_module_state, vmap

nn = torch.nn
torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))


models = [make() for _ in range(3)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)
base = copy.deepcopy(models[0]).to("meta")


def fmodel(p, b, z):
    return functional_call(base, (p, b), (z,))


z = torch.tensor([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6], [-0.7, 0.8]])
out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, z)
print("ensemble", tuple(out.shape), torch.allclose(out[1], models[1](z), atol=1e-6))
print("spread", out.std(0).squeeze(1).round(decimals=4).tolist())


def point(p, zz):
    y = functional_call(base, p, (zz.unsqueeze(0),)).squeeze()
    return y, {"y": y.detach()}


one = {k: v[0] for k, v in params.items()}
J, aux = vmap(jacrev(point, argnums=1, has_aux=True), in_dims=(None, 0))(one, z)
print("jac", tuple(J.shape), sorted(aux), tuple(aux["y"].shape))
Jc = jacrev(lambda zz: models[0](zz).squeeze(1), chunk_size=2)(z)
print("chunked", tuple(Jc.shape), torch.allclose(Jc.diagonal(dim1=0, dim2=1).T, J, atol=1e-6))

f = lambda zz: models[0](zz).squeeze(1)
y, dy = jvp(f, (z,), (torch.ones_like(z),))
print("jvp", dy.round(decimals=4).tolist(), torch.allclose(dy, J.sum(1), atol=1e-6))
y2, jvp_fn = linearize(f, z)
print("linearize", torch.allclose(jvp_fn(torch.ones_like(z)), dy, atol=1e-6), torch.equal(y, y2))

ab = vmap(lambda a, b: (a + b, a * b), in_dims=(0, None), out_dims=(0, 1))(torch.arange(3.0), torch.ones(2))
print("out_dims", [tuple(t.shape) for t in ab])
nested = vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
    {"a": torch.arange(3.0), "b": torch.tensor(2.0)}
)
print("nested", nested.tolist())


def loss(p, zz, target):
    pred = functional_call(base, p, (zz,))
    return ((pred - target) ** 2).mean(), pred.detach()


target = torch.zeros(4, 1)
plist = {k: v.clone() for k, v in one.items()}
for step in range(3):
    grads, (L, pred) = grad_and_value(loss, has_aux=True)(plist, z, target)
    plist = {k: v - 0.1 * grads[k] for k, v in plist.items()}
    print("step", step, round(L.item(), 4), tuple(pred.shape))
ens_grads = vmap(grad_and_value(loss, has_aux=True), in_dims=(0, None, None))(params, z, target)
print("ensemble losses", ens_grads[1][0].round(decimals=4).tolist())

for label, fn in [
    ("in_dims len", lambda: vmap(lambda a, b: a + b, in_dims=(0,))(torch.ones(2), torch.ones(2))),
    ("size mismatch", lambda: vmap(torch.add)(torch.ones(2), torch.ones(3))),
    ("out_dims", lambda: vmap(lambda a: a, out_dims=2)(torch.ones(2))),
    ("has_aux", lambda: jacrev(lambda a: a.sin(), has_aux=True)(torch.ones(2))),
    ("grad non-scalar", lambda: torch.func.grad(lambda a: a.sin())(torch.ones(2))),
    ("stack mismatch", lambda: stack_module_state([make(), nn.Linear(2, 1)])),
    ("item", lambda: vmap(lambda a: a.sum().item())(torch.ones(2, 2))),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:150])

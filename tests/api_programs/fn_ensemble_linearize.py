"""Model ensembling with stack_module_state + vmap, and vjp/jvp/linearize as JAX-style code uses them."""

import copy

import torch
import torch.nn as nn
from torch.func import functional_call, jvp, linearize, stack_module_state, vjp, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


models = [MLP() for _ in range(4)]
params, buffers = stack_module_state(models)
print("stacked", {k: tuple(v.shape) for k, v in params.items()})
print("buffers", buffers)
print("stacked requires_grad", params["fc1.weight"].requires_grad, params["fc1.weight"].is_leaf)

base = copy.deepcopy(models[0]).to("meta")


def fmodel(p, b, x):
    return functional_call(base, (p, b), (x,))


x = torch.randn(5, 3)
# same minibatch for every model
out_same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
print("same batch", out_same.shape)
loop = torch.stack([m(x) for m in models])
print("matches loop", torch.allclose(out_same, loop, atol=1e-6))
# a different minibatch per model
xs = torch.randn(4, 5, 3)
out_diff = vmap(fmodel)(params, buffers, xs)
print("diff batch", out_diff.shape, torch.allclose(out_diff[2], models[2](xs[2]), atol=1e-6))
print("ensemble mean", out_same.mean(0)[0], "std", out_same.std(0)[0])

# gradients flow into the stacked leaves
loss = out_same.pow(2).mean()
loss.backward()
print("stacked grad", params["fc2.bias"].grad.shape, round(params["fc2.bias"].grad.abs().sum().item(), 4))

show("mismatched models", lambda: stack_module_state([MLP(), nn.Linear(3, 2)]))
show("empty", lambda: stack_module_state([]))

# vjp: the cotangent API, with has_aux
def f(a, b):
    y = torch.sin(a) * b
    return y, {"norm": y.norm()}


a = torch.randn(3)
b = torch.randn(3)
out, vjp_fn, aux = vjp(f, a, b, has_aux=True)
ga, gb = vjp_fn(torch.ones(3))
print("vjp", ga, gb, round(aux["norm"].item(), 4))
print("analytic", torch.allclose(ga, torch.cos(a) * b), torch.allclose(gb, torch.sin(a)))
show("vjp wrong shape", lambda: vjp_fn(torch.ones(4)))

# vjp with multiple outputs: cotangent is a tuple
out2, fn2 = vjp(lambda t: (t.exp(), t.sum()), a)
print("vjp tuple", fn2((torch.ones(3), torch.tensor(2.0)))[0])

# jvp: directional derivative
primal, tangent = jvp(lambda t: (t ** 3).sum(), (a,), (torch.ones(3),))
print("jvp", round(primal.item(), 4), round(tangent.item(), 4), round((3 * a ** 2).sum().item(), 4))
p_out, t_out = jvp(f, (a, b), (torch.ones(3), torch.zeros(3)), has_aux=True)[:2]
print("jvp two primals", t_out)
show("jvp not tuple", lambda: jvp(torch.sin, a, torch.ones(3)))
show("jvp shape", lambda: jvp(torch.sin, (a,), (torch.ones(2),)))
show("jvp len", lambda: jvp(torch.mul, (a, b), (torch.ones(3),)))

# linearize: evaluate once, push many tangents
def g(t):
    return torch.stack([t[0] * t[1], torch.exp(t[2]), t.sum() ** 2])


y, jvp_fn = linearize(g, a)
print("linearize out", y)
for v in torch.eye(3):
    print("column", jvp_fn(v))
Jcols = torch.stack([jvp_fn(v) for v in torch.eye(3)], 1)
print("equals jacrev", torch.allclose(Jcols, torch.func.jacrev(g)(a), atol=1e-6))

# JVP through a network: sensitivity of outputs to one input feature
net = models[1]
x0 = torch.randn(3)
_, sens = jvp(net, (x0,), (torch.tensor([1.0, 0.0, 0.0]),))
print("sensitivity", sens.detach(), sens.requires_grad)
_, vjp_net = vjp(net, x0)
print("input grad of out[0]", vjp_net(torch.tensor([1.0, 0.0]))[0].detach())

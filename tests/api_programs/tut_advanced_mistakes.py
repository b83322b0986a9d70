"""The mistakes people make when adapting the intermediate/advanced tutorials, with the exact errors: custom
Functions returning the wrong number or shape of gradients, saving non-tensors, backward twice; torch.func
transforms given non-scalar outputs, bad in_dims/out_dims, has_aux misuse, functional_call with missing or
unexpected keys, stack_module_state over mismatched models; parametrizations that change shape without unsafe,
or a right_inverse of the wrong shape; pruning with bad importance scores; nested forward-AD levels."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
import torch.nn.utils.prune as prune
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call, grad, jacrev, stack_module_state, vmap


def show(fn):
    try:
        out = fn()
        print("ok", out if not isinstance(out, torch.Tensor) else tuple(out.shape))
    except Exception as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(type(e).__name__ + ":", msg[:150])


x = torch.from_numpy(np.linspace(-1.0, 1.0, 6).reshape(2, 3)).requires_grad_()


class TooFew(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g


class BadShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g.sum(0)


class SaveInt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a.clone()

    @staticmethod
    def backward(ctx, g):
        return g


class NoneGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()

    @staticmethod
    def backward(ctx, g):
        return None


show(lambda: TooFew.apply(x, x).sum().backward())
show(lambda: BadShape.apply(x).sum().backward())
show(lambda: SaveInt.apply(x))
x.grad = None
show(lambda: NoneGrad.apply(x).sum().backward())
print("grad after None", x.grad)
y = (x.exp() * 2).sum()
y.backward()
show(lambda: y.backward())
show(lambda: torch.autograd.grad(x.sum(), x, grad_outputs=torch.ones(2)))
show(lambda: (x * 2).backward())
show(lambda: torch.autograd.grad((x * 2).sum(), torch.ones(2, 3)))

# torch.func transforms
show(lambda: grad(lambda t: t * 2)(torch.ones(3)))
show(lambda: grad(lambda t: (t * 2).sum())(torch.ones(3, dtype=torch.long)))
show(lambda: vmap(torch.sum, in_dims=1)(torch.ones(2, 3)))
show(lambda: vmap(torch.sum, in_dims=2)(torch.ones(2, 3)))
show(lambda: vmap(lambda a, b: a + b, in_dims=(0,))(torch.ones(2, 3), torch.ones(2, 3)))
show(lambda: vmap(lambda a, b: a + b)(torch.ones(2, 3), torch.ones(3, 3)))
show(lambda: vmap(lambda a: a.sum().item())(torch.ones(2, 3)))
show(lambda: vmap(lambda a: a * 2, out_dims=1)(torch.ones(2, 3)))
show(lambda: jacrev(lambda a: (a.sin(), a.cos()), has_aux=True)(torch.ones(2)))
show(lambda: jacrev(lambda a: a.sin(), has_aux=True)(torch.ones(2)))
show(lambda: grad(lambda a: a.sum(), argnums=1)(torch.ones(2)))

net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
params = dict(net.named_parameters())
show(lambda: functional_call(net, {"0.weight": torch.zeros(2, 3)}, (torch.ones(1, 3),)))
show(lambda: functional_call(net, {"0.weight": torch.zeros(2, 3)}, (torch.ones(1, 3),), strict=True))
show(lambda: functional_call(net, {**params, "9.weight": torch.zeros(1)}, (torch.ones(1, 3),), strict=True))
show(lambda: functional_call(net, {"0.weight": torch.zeros(5, 5)}, (torch.ones(1, 3),)))
show(lambda: stack_module_state([nn.Linear(3, 2), nn.Linear(3, 4)]))
show(lambda: stack_module_state([]))


# parametrizations
class Flatten(nn.Module):
    def forward(self, X):
        return X.flatten()


class WrongInverse(nn.Module):
    def forward(self, X):
        return X

    def right_inverse(self, X):
        return X[:1]


show(lambda: P.register_parametrization(nn.Linear(3, 2), "weight", Flatten()))
show(lambda: P.register_parametrization(nn.Linear(3, 2), "weight", WrongInverse()))
show(lambda: P.register_parametrization(nn.Linear(3, 2), "weights", Flatten()))
lin = nn.Linear(3, 2)
P.register_parametrization(lin, "weight", Flatten(), unsafe=True)
print("unsafe", tuple(lin.weight.shape))
show(lambda: lin(torch.ones(1, 3)))

# pruning
show(lambda: prune.l1_unstructured(nn.Linear(3, 2), "weight", amount=0.5, importance_scores=torch.ones(3)))
show(lambda: prune.global_unstructured([(nn.Linear(3, 2), "weight")], pruning_method=prune.L1Unstructured,
                                       amount=10))
show(lambda: prune.global_unstructured([(nn.Linear(3, 2), "weight")], pruning_method=prune.LnStructured,
                                       amount=0.5))
show(lambda: prune.ln_structured(nn.Linear(3, 2), "weight", amount=0.5, n=2, dim=3))

# forward AD
with fwAD.dual_level():
    show(lambda: fwAD.enter_dual_level())
    show(lambda: fwAD.make_dual(torch.ones(2, dtype=torch.long), torch.ones(2)))
    d = fwAD.make_dual(torch.ones(2), torch.ones(2))
    show(lambda: fwAD.make_dual(d, torch.ones(2)))
show(lambda: fwAD.exit_dual_level())
print("unpack outside", fwAD.unpack_dual(d).tangent)

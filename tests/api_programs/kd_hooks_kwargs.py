"""Hooks as adapter and distillation code uses them: kwargs pre-hooks, always_call, backward pre-hooks, globals."""

import torch

nn = torch.nn
F = torch.nn.functional
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook  # noqa: E402

torch.manual_seed(0)


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x, *, scale=1.0, mask=None):
        y = self.lin(x) * scale
        return y if mask is None else y * mask


g = Gate()
log = []


def pre(m, args, kwargs):
    log.append(("pre", sorted(kwargs)))
    kwargs = dict(kwargs)
    kwargs["scale"] = 2.0
    return args, kwargs


def post(m, args, kwargs, out):
    log.append(("post", kwargs.get("scale")))
    return out + 1


h1 = g.register_forward_pre_hook(pre, with_kwargs=True)
h2 = g.register_forward_hook(post, with_kwargs=True)
h3 = g.register_forward_hook(lambda m, i, o: log.append("first"), prepend=True)
x = torch.ones(1, 3)
print(g(x, scale=0.5).round(decimals=4).tolist(), log)
print(g(x, mask=torch.tensor([1.0, 0.0, 1.0])).round(decimals=4).tolist())
h4 = g.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
try:
    g(x)
except Exception as e:
    print(type(e).__name__, e)
h4.remove()
h5 = g.register_forward_pre_hook(lambda m, args: (args[0] * 0,), prepend=True)
print("zeroed input", g(x).round(decimals=4).tolist())
h5.remove()
h6 = g.register_forward_pre_hook(lambda m, args: args[0] * 3)
print("bare return", g(x).round(decimals=4).tolist())
h6.remove()
print(type(h1).__name__, h1.id < h2.id, len(g._forward_hooks), len(g._forward_pre_hooks))
with h1:
    pass
print("after context", len(g._forward_pre_hooks), g(x, scale=0.5).round(decimals=4).tolist())


class Fails(nn.Module):
    def forward(self, x):
        raise ValueError("forward failed")


e, called = Fails(), []
e.register_forward_hook(lambda m, i, o: called.append(o), always_call=True)
e.register_forward_hook(lambda m, i, o: called.append("never"))
try:
    e(x)
except Exception as ex:
    print(type(ex).__name__, ex, called)

# backward hooks: pre-hook scales the incoming gradient (gradient reversal / scaling for adapters)
lin = nn.Linear(3, 2)
seen = []


def bpre(m, grad_output):
    seen.append(("bpre", [tuple(t.shape) for t in grad_output]))
    return (grad_output[0] * 10,)


def bhook(m, grad_input, grad_output):
    seen.append(
        (
            "bhook",
            [None if t is None else tuple(t.shape) for t in grad_input],
            [round(t.sum().item(), 4) for t in grad_output],
        )
    )


hb1 = lin.register_full_backward_pre_hook(bpre)
hb2 = lin.register_full_backward_hook(bhook)
xi = torch.randn(4, 3, requires_grad=True)
lin(xi).sum().backward()
print(seen, round(xi.grad.sum().item(), 4), round(lin.weight.grad.sum().item(), 4))
seen.clear()
lin.weight.grad = None
lin(torch.randn(4, 3)).sum().backward()
print(seen, round(lin.weight.grad.sum().item(), 4))
hb1.remove()
hb2.remove()


class GradReverse(nn.Module):
    def forward(self, x):
        return x.view_as(x)


gr = GradReverse()
gr.register_full_backward_hook(lambda m, gi, go: (-gi[0],))
z = torch.ones(2, requires_grad=True)
(gr(z) * torch.tensor([1.0, 2.0])).sum().backward()
print("reversed", z.grad.tolist())

names = []
gh = register_module_forward_hook(lambda m, i, o: names.append(type(m).__name__))
gp = register_module_forward_pre_hook(lambda m, i: names.append("pre:" + type(m).__name__))
nn.Sequential(nn.Linear(3, 3), nn.ReLU())(x)
gh.remove()
gp.remove()
nn.Linear(3, 3)(x)
print(names)

"""Module hooks as profilers, adapters and debuggers register them: forward pre hooks with kwargs, forward hooks
with always_call, full backward hooks and backward pre hooks, the global module hooks, prepend ordering and handle
removal, with the errors of bad hook returns."""

import warnings

import torch
from torch import nn
from torch.nn.modules import module as module_mod

torch.manual_seed(9)
torch.set_printoptions(precision=4)


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x, scale=1.0, *, bias=None):
        y = self.lin(x) * scale
        if bias is not None:
            y = y + bias
        return y


g = Gate()
x = torch.randn(2, 3, requires_grad=True)
events = []


def pre_kw(mod, args, kwargs):
    events.append(("pre_kw", len(args), sorted(kwargs)))
    kwargs = dict(kwargs)
    kwargs["scale"] = 2.0
    return args, kwargs


def pre_plain(mod, args):
    events.append(("pre_plain", tuple(a.shape for a in args)))


def fwd_kw(mod, args, kwargs, out):
    events.append(("fwd_kw", sorted(kwargs), tuple(out.shape)))
    return out + 1


def fwd(mod, args, out):
    events.append(("fwd", round(out.sum().item(), 4)))


h = [g.register_forward_pre_hook(pre_kw, with_kwargs=True),
     g.register_forward_pre_hook(pre_plain, prepend=True),
     g.register_forward_hook(fwd_kw, with_kwargs=True),
     g.register_forward_hook(fwd)]
base = g.lin(x) * 2.0 + 0.5 + 1
out = g(x, bias=torch.tensor(0.5))
for e in events:
    print(e)
print("hooked output", torch.allclose(out, base), out)
events.clear()
for hd in h:
    hd.remove()
g(x)
print("after remove", events, len(g._forward_hooks), len(g._forward_pre_hooks))


# always_call: the hook runs even if forward raises
class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom in forward")


b = Boom()
calls = []
b.register_forward_hook(lambda m, a, o: calls.append(("always", o)), always_call=True)
b.register_forward_hook(lambda m, a, o: calls.append(("normal", o)))
try:
    b(torch.ones(1))
except ValueError as e:
    print("ValueError", e)
print(calls)

# backward hooks
seq = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
bw = []


def full_bw(mod, grad_input, grad_output):
    bw.append((type(mod).__name__, [None if gi is None else tuple(gi.shape) for gi in grad_input],
               [tuple(go.shape) for go in grad_output]))


def bw_pre(mod, grad_output):
    bw.append(("pre", type(mod).__name__, round(grad_output[0].sum().item(), 4)))
    return (grad_output[0] * 10,)


def scale_in(mod, grad_input, grad_output):
    return (grad_input[0] * 0.5,)


seq[0].register_full_backward_hook(full_bw)
seq[1].register_full_backward_hook(scale_in)
seq[2].register_full_backward_pre_hook(bw_pre)
seq[2].register_full_backward_hook(full_bw)
xi = torch.randn(5, 3, requires_grad=True)
seq(xi).sum().backward()
for e in bw:
    print(e)
print("x grad", xi.grad[0])
ref = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
ref.load_state_dict(seq.state_dict())
xr = xi.detach().clone().requires_grad_()
ref(xr).sum().backward()
print("ratio", torch.allclose(xi.grad, xr.grad * 5, atol=1e-6))

# global hooks see every module call
glog = []
hg1 = module_mod.register_module_forward_pre_hook(lambda m, a: glog.append(("gpre", type(m).__name__)))
hg2 = module_mod.register_module_forward_hook(lambda m, a, o: glog.append(("gpost", type(m).__name__)))
seq(torch.randn(1, 3))
hg1.remove()
hg2.remove()
print(glog)
seq(torch.randn(1, 3))
print(len(glog))
hg3 = module_mod.register_module_forward_hook(lambda m, a, kw, o: glog.append(("gkw", sorted(kw))), with_kwargs=True)
hg4 = module_mod.register_module_forward_hook(lambda m, a, o: glog.append(("galways", o)), always_call=True)
glog.clear()
g(x, scale=0.5)
try:
    Boom()(torch.ones(1))
except ValueError:
    pass
hg3.remove()
hg4.remove()
print(glog)

# hooks keyed by id, dicts visible
hd = seq[1].register_forward_hook(lambda m, a, o: None)
print(type(hd).__name__, hd.id in seq[1]._forward_hooks)
hd.remove()
print(hd.id in seq[1]._forward_hooks)
with seq[0].register_forward_hook(lambda m, a, o: o * 0) as ctx:
    print("in ctx", seq[0](torch.ones(1, 3)).abs().sum().item())
print("out ctx", seq[0](torch.ones(1, 3)).abs().sum().item() > 0)


# a forward pre hook returning a single non-tuple value is wrapped
def wrap(m, args):
    return args[0] * 0


lin = nn.Linear(2, 2)
lin.register_forward_pre_hook(wrap)
print("wrapped", lin(torch.ones(1, 2)).tolist() == lin.bias.detach().unsqueeze(0).tolist())

# register_full_backward_hook on a module whose input has no grad
n = nn.Linear(2, 1)
seen = []
n.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
n(torch.ones(1, 2)).sum().backward()
print("grad_input without grad", seen)


def bad_bw(m, gi, go):
    return (gi[0], gi[0])


t = nn.Tanh()
t.register_full_backward_hook(bad_bw)
try:
    t(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)


# the deprecated non-full backward hook still runs, with a FutureWarning where its grads are incomplete
legacy = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
got = []
legacy.register_backward_hook(lambda m, gi, go: got.append([None if g is None else tuple(g.shape) for g in gi]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy(torch.ones(1, 2)).sum().backward()
print([(w.category.__name__, str(w.message)[:60]) for w in caught])
print(got)
try:
    legacy.register_full_backward_hook(lambda m, gi, go: None)
    legacy(torch.ones(1, 2)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)


# a module returning a dict: PyTorch warns and its full backward hook never runs
class DictOut(nn.Module):
    def forward(self, a):
        return {"o": a * 2}


dm = DictOut()
dcalls = []
dm.register_full_backward_hook(lambda m, gi, go: dcalls.append(gi))
xd = torch.ones(2, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    res = dm(xd)
print([(w.category.__name__, str(w.message)) for w in caught])
res["o"].sum().backward()
print("dict hook calls", dcalls, xd.grad)

"""Training-loop instrumentation as Lightning callbacks and timm utilities write it: activation statistics through
forward hooks (with kwargs, prepended, global, always_call), per-layer gradient norms through full backward hooks
and backward pre-hooks, a straight-through estimator as a custom Function, and the errors researchers meet: an
in-place ReLU under a full backward hook, writing into a Function output that aliases its input."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(13)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=4):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


class Block(nn.Module):
    def __init__(self, d, act=nn.GELU):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.act = act()
        self.norm = nn.LayerNorm(d)

    def forward(self, x, scale=1.0):
        return self.norm(x + scale * self.act(self.fc(x)))


class Net(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.stem = nn.Linear(4, d)
        self.blocks = nn.ModuleList([Block(d), Block(d)])
        self.head = nn.Linear(d, 3)

    def forward(self, x):
        x = self.stem(x)
        for i, b in enumerate(self.blocks):
            x = b(x, scale=0.5 * (i + 1))
        return self.head(x)


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(npt(*p.shape, scale=0.5))
X, Y = npt(8, 4), torch.from_numpy(rng.integers(0, 3, 8))

acts, order = {}, []
handles = []
for name, m in net.named_modules():
    if isinstance(m, Block):
        handles.append(m.register_forward_hook(
            lambda mod, args, kwargs, out, name=name: acts.__setitem__(name, (kwargs.get("scale"), round(
                out.std().item(), 4))), with_kwargs=True))
        handles.append(m.register_forward_pre_hook(lambda mod, args, name=name: order.append(f"pre:{name}")))
        handles.append(m.register_forward_pre_hook(lambda mod, args, name=name: order.append(f"first:{name}"),
                                                   prepend=True))
g = nn.modules.module.register_module_forward_hook(lambda mod, i, o: order.append(type(mod).__name__)
                                                   if isinstance(mod, nn.LayerNorm) else None)
out = net(X)
g.remove()
print("acts", acts)
print("order", order)
for h in handles:
    h.remove()
print("hooks left", len(net.blocks[0]._forward_hooks), len(net.blocks[0]._forward_pre_hooks))

grad_norms, pre_seen = {}, []
for name, m in net.named_modules():
    if isinstance(m, nn.Linear):
        m.register_full_backward_hook(lambda mod, gin, gout, name=name: grad_norms.__setitem__(
            name, (round(gout[0].norm().item(), 4), None if gin[0] is None else round(gin[0].norm().item(), 4))))
        m.register_full_backward_pre_hook(lambda mod, gout, name=name: pre_seen.append(name))
loss = F.cross_entropy(net(X), Y)
loss.backward()
print("loss", round(loss.item(), 4))
for k in sorted(grad_norms):
    print(" ", k, grad_norms[k])
print("pre order", pre_seen)
print("out grad_fn", net.head(X @ net.stem.weight.t()).grad_fn.name())
param_norms = {n: round(p.grad.norm(2).item(), 4) for n, p in net.named_parameters() if p.grad is not None}
total = torch.norm(torch.stack([p.grad.norm(2) for p in net.parameters()]), 2)
print("grad_2.0_norm_total", round(total.item(), 4), len(param_norms), param_norms["head.bias"])


class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("shape mismatch in Boom")


seen = []
boom = Boom()
boom.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
try:
    boom(X)
except ValueError as e:
    print("ValueError", e, seen)

relu_net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True))
relu_net[1].register_full_backward_hook(lambda *a: None)
try:
    relu_net(X)
except RuntimeError as e:
    print("RuntimeError", str(e)[:96])
safe = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
safe.load_state_dict({"0.weight": npt(4, 4), "0.bias": npt(4, scale=0.1)})
safe[1].register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 0.5,))
xg = X.clone().requires_grad_()
safe(xg).sum().backward()
print("scaled grad", r(xg.grad[0]))


class STERound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad):
        return grad


class PassThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


w = npt(5, scale=2.0).requires_grad_()
q = STERound.apply(w)
(q * q).sum().backward()
print("ste", r(q, 5), r(w.grad, 5), q.grad_fn.name())
h = w * 1
p = PassThrough.apply(h)
print("pass", p.grad_fn.name(), p.requires_grad)
try:
    p.add_(1)
except RuntimeError as e:
    print("RuntimeError", str(e)[:110])
p2 = PassThrough.apply(h).clone()
p2.add_(1)
w.grad = None
p2.sum().backward()
print("cloned ok", r(w.grad, 3))
with torch.no_grad():
    p.mul_(0)
print("no_grad write", r(p, 3), r(h, 3))

import warnings  # noqa: E402

legacy = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
legacy.load_state_dict({"0.weight": npt(3, 4), "0.bias": npt(3)})
calls = []
legacy[1].register_backward_hook(lambda mod, gin, gout: calls.append(type(mod).__name__))
legacy[0].register_backward_hook(lambda mod, gin, gout: calls.append(type(mod).__name__))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy(X).sum().backward()
print("legacy hooks", calls, [str(w.message)[:72] for w in caught])
try:
    legacy[1].register_full_backward_hook(lambda *a: None)
except RuntimeError as e:
    print("RuntimeError", e)

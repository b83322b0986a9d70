"""Autograd diagnostics and forward mode: in-place version errors, anomaly tracebacks, forward-mode AD with dual
numbers, custom Function jvp, multi-grad hooks, post-accumulate hooks, gradient edges, and Function misuse errors."""

import numpy as np
import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.graph import register_multi_grad_hook, get_gradient_edge, increment_version

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float64))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


# in-place modification of a saved tensor
a = T(3).requires_grad_()
b = a.sigmoid()
c = b * 2
b.mul_(3)
try:
    c.sum().backward()
    out = (b * 1).sum()
    b2 = a.exp()
    s = b2.sum()
    b2.add_(1)
    s.backward()
    print("exp_ok")
except RuntimeError as e:
    print("version_err", str(e).split(";")[0][:120])
a.grad = None
e = a.exp()
y = e * e
e.add_(1)
try:
    y.sum().backward()
except RuntimeError as err:
    msg = str(err)
    print("inplace", msg[:75], "ExpBackward0" in msg or "MulBackward0" in msg, "version 1" in msg)
leaf = T(3).requires_grad_()
try:
    leaf.add_(1)
except RuntimeError as err:
    print("leaf_inplace", err)
with torch.no_grad():
    leaf.add_(1)
print("nograd_inplace", leaf._version, leaf.is_leaf)
v = leaf.clone()
view = v[:2]
view.mul_(2)
print("view_inplace", v.grad_fn.name(), view.grad_fn.name(), v._version)
increment_version(v)
print("increment", v._version)

# forward-mode AD
x = T(4)
tangent = torch.ones(4, dtype=torch.float64)
with fwAD.dual_level():
    dual = fwAD.make_dual(x, tangent)
    out = (dual.sin() * dual).sum()
    p, t = fwAD.unpack_dual(out)
    print("fwd", round(p.item(), 4), round(t.item(), 4))
    expected = (x.cos() * x + x.sin()).sum()
    print("fwd_check", torch.allclose(t, expected))
    unpacked = fwAD.unpack_dual(dual)
    print("unpacked", type(unpacked).__name__, unpacked.tangent is not None, fwAD.unpack_dual(x).tangent)
    try:
        fwAD.make_dual(x, torch.ones(3, dtype=torch.float64))
    except RuntimeError as err:
        print("tangent_shape", str(err)[:70])


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        ctx.save_for_forward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g

    @staticmethod
    def jvp(ctx, tt):
        (t,) = ctx.saved_tensors
        return 2 * t * tt


with fwAD.dual_level():
    d = fwAD.make_dual(x, tangent)
    print("fn_jvp", r(fwAD.unpack_dual(Square.apply(d)).tangent), r(2 * x))


# multi-grad hook and post-accumulate hook
p1, p2 = T(2).requires_grad_(), T(2).requires_grad_()
seen = []
h = register_multi_grad_hook((p1, p2), lambda grads: seen.append([g is not None for g in grads]))
(p1 * 3).sum().backward()
(p1 * p2).sum().backward()
h.remove()
print("multi_grad", seen)
h_any = register_multi_grad_hook((p1, p2), lambda g: seen.append(("any", tuple(g.shape))), mode="any")
(p2 * 2).sum().backward()
h_any.remove()
print("multi_any", seen[-1])
steps = []


def sgd_hook(p):
    with torch.no_grad():
        p.add_(p.grad, alpha=-0.1)
    steps.append(round(p.grad.sum().item(), 4))
    p.grad = None


w = T(3).requires_grad_()
w0 = w.detach().clone()
hh = w.register_post_accumulate_grad_hook(sgd_hook)
(w**2).sum().backward()
print("post_acc", steps, w.grad, torch.allclose(w.detach(), w0 - 0.2 * w0))
hh.remove()
try:
    (w * 2).register_post_accumulate_grad_hook(sgd_hook)
except RuntimeError as err:
    print("post_acc_err", err)

# gradient edges
z = T(3).requires_grad_()
mid = z.exp()
out = mid.sum()
edge = get_gradient_edge(mid)
print("edge", type(edge).__name__, edge.node.name(), edge.output_nr)
(gz,) = torch.autograd.grad(out, edge, retain_graph=True)
print("grad_edge", r(gz), torch.allclose(gz, torch.ones(3, dtype=torch.float64)))


# Function misuse
class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, k):
        return t * k

    @staticmethod
    def backward(ctx, g):
        return g, g, g


try:
    WrongCount.apply(z, 2.0).sum().backward()
except RuntimeError as err:
    print("wrong_count", err)


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.sum()

    @staticmethod
    def backward(ctx, g):
        return g.expand(5)


try:
    WrongShape.apply(z).backward()
except RuntimeError as err:
    print("wrong_shape", str(err)[:90])


class Saver(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        ctx.needs = ctx.needs_input_grad
        return t.clone()

    @staticmethod
    def backward(ctx, g):
        return g


s_out = Saver.apply(z)
s_out.sum().backward()
print("needs_input_grad", s_out.grad_fn.needs)
try:
    s_out.grad_fn.saved_tensors
except RuntimeError as err:
    print("freed", str(err)[:60])
try:
    Saver.forward(None, z)
except AttributeError as err:
    print("direct_forward", type(err).__name__)
print("OK")

"""A library author's custom operators with torch.library: custom_op with several outputs, optional and list
arguments and defaults, register_fake for meta/shape inference, register_autograd with setup_context saving inputs
and outputs, a mutating op, calling through torch.ops, torch._check in a fake kernel, and the errors of bad schemas."""

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

torch.set_printoptions(precision=4)


@torch.library.custom_op("fwlib::scaled_softplus", mutates_args=())
def scaled_softplus(x: Tensor, beta: float = 1.0, bias: Tensor | None = None) -> Tensor:
    xn = x.detach().cpu().numpy()
    out = np.log1p(np.exp(beta * xn)) / beta
    if bias is not None:
        out = out + bias.detach().cpu().numpy()
    return torch.from_numpy(out.astype(xn.dtype))


@scaled_softplus.register_fake
def _(x, beta=1.0, bias=None):
    if bias is not None:
        torch._check(bias.shape[-1] == x.shape[-1], lambda: "bias must match the last dim")
    return torch.empty_like(x)


def _sp_setup(ctx, inputs, output):
    x, beta, bias = inputs
    ctx.beta = beta
    ctx.has_bias = bias is not None
    ctx.save_for_backward(x)


def _sp_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    gx = grad * torch.sigmoid(ctx.beta * x)
    gb = grad.sum(0) if ctx.has_bias else None
    return gx, None, gb


scaled_softplus.register_autograd(_sp_backward, setup_context=_sp_setup)

x = torch.linspace(-2, 2, 8).reshape(2, 4).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3, 0.0], requires_grad=True)
y = scaled_softplus(x, 2.0, b)
print("y", y)
print("grad_fn", y.grad_fn is not None, y.requires_grad)
y.pow(2).sum().backward()
print("x.grad", x.grad)
print("b.grad", b.grad)
ref = torch.nn.functional.softplus(x.detach(), beta=2.0) + b.detach()
print("matches F.softplus", torch.allclose(y.detach(), ref, atol=1e-6))
print("via torch.ops", torch.allclose(torch.ops.fwlib.scaled_softplus(x.detach(), 2.0, b.detach()), y.detach()))
print("default beta", scaled_softplus(torch.tensor([0.0, 1.0])))


# two outputs, one of them integer (not differentiable); the output is saved for backward
@torch.library.custom_op("fwlib::topk_softmax", mutates_args=())
def topk_softmax(x: Tensor, k: int) -> tuple[Tensor, Tensor]:
    xn = x.detach().numpy()
    idx = np.argsort(-xn, axis=-1, kind="stable")[..., :k]
    vals = np.take_along_axis(xn, idx, -1)
    e = np.exp(vals - vals.max(-1, keepdims=True))
    return torch.from_numpy(e / e.sum(-1, keepdims=True)), torch.from_numpy(idx.astype(np.int64))


@topk_softmax.register_fake
def _(x, k):
    shape = list(x.shape[:-1]) + [k]
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.long)


def _tk_setup(ctx, inputs, output):
    x, k = inputs
    probs, idx = output
    ctx.mark_non_differentiable(idx)
    ctx.save_for_backward(probs, idx)
    ctx.in_shape = x.shape


def _tk_backward(ctx, gprobs, gidx):
    probs, idx = ctx.saved_tensors
    gs = probs * (gprobs - (gprobs * probs).sum(-1, keepdim=True))
    gx = torch.zeros(ctx.in_shape, dtype=gs.dtype).scatter(-1, idx, gs)
    return gx, None


topk_softmax.register_autograd(_tk_backward, setup_context=_tk_setup)

logits = torch.sin(torch.arange(12.0)).reshape(3, 4).requires_grad_()
p, i = topk_softmax(logits, 2)
print("probs", p)
print("idx", i, i.dtype, i.requires_grad)
(p * torch.tensor([1.0, -1.0])).sum().backward()
print("logits.grad", logits.grad)

# shape inference through the fake kernel on the meta device
xm = torch.empty(5, 7, device="meta")
pm, im = topk_softmax(xm, 3)
print("meta", pm.shape, pm.device, im.dtype)
ym = scaled_softplus(torch.empty(3, 6, device="meta"), 1.0, torch.empty(6, device="meta"))
print("meta softplus", ym.shape, ym.dtype, ym.device)


# a list of tensors in, one tensor out
@torch.library.custom_op("fwlib::weighted_sum", mutates_args=())
def weighted_sum(xs: Sequence[Tensor], weights: Sequence[float]) -> Tensor:
    out = torch.zeros_like(xs[0])
    for t, w in zip(xs, weights):
        out += t * w
    return out


@weighted_sum.register_fake
def _(xs, weights):
    return torch.empty_like(xs[0])


def _ws_setup(ctx, inputs, output):
    ctx.weights = inputs[1]


def _ws_backward(ctx, grad):
    return [grad * w for w in ctx.weights], None


weighted_sum.register_autograd(_ws_backward, setup_context=_ws_setup)
a = torch.ones(3, requires_grad=True)
c = torch.arange(3.0, requires_grad=True)
s = weighted_sum([a, c], [0.5, 2.0])
print("weighted_sum", s)
s.sum().backward()
print("grads", a.grad, c.grad)


# a mutating op: writes into `out`
@torch.library.custom_op("fwlib::clamp_into", mutates_args={"out"})
def clamp_into(x: Tensor, lo: float, hi: float, out: Tensor) -> None:
    out.copy_(x.clamp(lo, hi))


buf = torch.zeros(4)
v0 = buf._version
clamp_into(torch.tensor([-3.0, 0.5, 2.0, 9.0]), -1.0, 1.0, buf)
print("clamp_into", buf, "version bumped", buf._version > v0)

print("op types", type(scaled_softplus).__name__, str(torch.ops.fwlib.topk_softmax.default))

# schema errors a library author meets
try:
    @torch.library.custom_op("fwlib::noret", mutates_args=())
    def noret(x: Tensor):
        return x
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0][:90])
try:
    @torch.library.custom_op("fwlib::noann", mutates_args=())
    def noann(x) -> Tensor:
        return x
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0][:90])

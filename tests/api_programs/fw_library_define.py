"""Operators defined the older torch.library way, as many extension libraries still do: Library("ns", "DEF")
with define(schema) and impl per dispatch key, torch.library.define/impl decorators, keyword-only and defaulted
schema arguments, a mutating schema (Tensor(a!)), a Meta kernel versus register_fake, register_autograd on a
schema-defined op, calls through torch.ops, and the errors for a missing kernel, a duplicate definition and a
meta call without a fake implementation."""

import torch

torch.set_printoptions(precision=4)

lib = torch.library.Library("fwdef", "DEF")
print(lib)
lib.define("scale(Tensor x, float alpha=2.0) -> Tensor")
lib.define("rms(Tensor x, *, float eps=1e-6) -> Tensor")
lib.define("bump_(Tensor(a!) x, float by) -> ()")
lib.define("pair(Tensor x, int k) -> (Tensor, Tensor)")


def scale_cpu(x, alpha=2.0):
    return x * alpha


def rms_cpu(x, *, eps=1e-6):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def rms_meta(x, *, eps=1e-6):
    return torch.empty_like(x)


def bump_cpu(x, by):
    x.add_(by)


lib.impl("scale", scale_cpu, "CPU")
lib.impl("rms", rms_cpu, "CPU")
lib.impl("rms", rms_meta, "Meta")
lib.impl("bump_", bump_cpu, "CompositeExplicitAutograd")

x = torch.linspace(-1, 2, 6).reshape(2, 3)
print("scale default", torch.ops.fwdef.scale(x))
print("scale alpha", torch.ops.fwdef.scale(x, 0.5)[0], torch.ops.fwdef.scale(x, alpha=-1.0)[1])
print("scale via .default", torch.ops.fwdef.scale.default(torch.ones(2), 3.0))
print("rms", torch.ops.fwdef.rms(x))
print("rms eps kw", torch.ops.fwdef.rms(torch.zeros(1, 2), eps=1.0))
print("rms on meta", torch.ops.fwdef.rms(torch.empty(4, 8, device="meta")).shape)
buf = torch.zeros(3)
res = torch.ops.fwdef.bump_(buf, 1.5)
print("bump_", buf, res)

torch.library.define("fwdef::smooth_l1", "(Tensor pred, Tensor target, float beta=1.0) -> Tensor")


@torch.library.impl("fwdef::smooth_l1", "cpu")
def smooth_l1(pred, target, beta=1.0):
    d = (pred - target).abs()
    return torch.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).mean()


@torch.library.register_fake("fwdef::smooth_l1")
def _(pred, target, beta=1.0):
    return pred.new_empty(())


def setup(ctx, inputs, output):
    pred, target, beta = inputs
    ctx.save_for_backward(pred, target)
    ctx.beta = beta


def backward(ctx, grad):
    pred, target = ctx.saved_tensors
    d = pred - target
    g = torch.where(d.abs() < ctx.beta, d / ctx.beta, d.sign()) / d.numel()
    return grad * g, -grad * g, None


torch.library.register_autograd("fwdef::smooth_l1", backward, setup_context=setup)
pred = torch.tensor([0.2, 1.5, -3.0, 0.9], requires_grad=True)
target = torch.tensor([0.0, 0.0, 0.0, 1.0])
loss = torch.ops.fwdef.smooth_l1(pred, target, 1.0)
print("smooth_l1", loss, "matches F", torch.allclose(loss, torch.nn.functional.smooth_l1_loss(pred, target)))
loss.backward()
ref = torch.autograd.grad(torch.nn.functional.smooth_l1_loss(pred, target), pred)[0]
print("grad", pred.grad, torch.allclose(pred.grad, ref))
print("fake on meta", torch.ops.fwdef.smooth_l1(torch.empty(5, device="meta"), torch.empty(5, device="meta")).shape)
print("no grad_fn without requires_grad", torch.ops.fwdef.smooth_l1(target, target).grad_fn)

try:
    torch.ops.fwdef.pair(x, 1)
except NotImplementedError as e:
    print("NotImplementedError:", str(e)[:75])
try:
    lib.define("scale(Tensor x) -> Tensor")
except RuntimeError as e:
    print("RuntimeError:", str(e)[:130])
try:
    torch.ops.fwdef.scale(torch.empty(2, device="meta"))
except NotImplementedError as e:
    print("NotImplementedError:", str(e)[:130])
try:
    torch.library.Library("fwdef", "BOGUS")
except ValueError as e:
    print("ValueError:", e)
try:
    torch.ops.fwdef.missing
except AttributeError as e:
    print("AttributeError:", e)
print(torch.library.Library("fwdef", "IMPL"), torch.library.Library("fwdef", "FRAGMENT"))

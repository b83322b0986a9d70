"""The 'Python Custom Operators' tutorial with numpy kernels instead of PIL: torch.library.custom_op with type
hints and mutates_args=(), register_fake, register_autograd with setup_context, a mutating op
(mutates_args={"out"}) whose version is bumped, torch.library.opcheck, use under torch.compile, and the schema
errors of a missing return annotation, a name without a namespace and an unannotated parameter."""

from typing import Sequence  # noqa: UP035  (the tutorial's import)

import numpy as np
import torch
from torch import Tensor

rng = np.random.default_rng(12)


def r(t):
    return np.round(t.detach().double().numpy(), 4).tolist()


@torch.library.custom_op("mylib::crop", mutates_args=())
def crop(pic: Tensor, box: Sequence[int]) -> Tensor:
    img = pic.cpu().numpy()
    x0, y0, x1, y1 = box
    result = np.ascontiguousarray(img[:, y0:y1, x0:x1])
    return torch.from_numpy(result).to(pic.device)


@crop.register_fake
def _(pic, box):
    channels = pic.shape[0]
    x0, y0, x1, y1 = box
    return pic.new_empty(channels, y1 - y0, x1 - x0)


def setup_context(ctx, inputs, output):
    ctx.pic_shape = inputs[0].shape
    ctx.box = inputs[1]


def backward(ctx, grad_output):
    grad_input = grad_output.new_zeros(ctx.pic_shape)
    x0, y0, x1, y1 = ctx.box
    grad_input[:, y0:y1, x0:x1] = grad_output
    return grad_input, None


crop.register_autograd(backward, setup_context=setup_context)

img = torch.from_numpy(rng.random((3, 6, 5)).astype(np.float32)).requires_grad_()
result = crop(img, (1, 2, 4, 5))
print(result.shape, result.dtype, type(result.grad_fn).__name__ if result.grad_fn else None)
print("values", torch.equal(result, img[:, 2:5, 1:4]))
result.sum().backward()
print("grad", img.grad.sum().item(), r(img.grad[0, 1:4, 0:2]))
print(type(crop).__name__, torch.equal(crop(img, box=(0, 0, 2, 2)), img[:, :2, :2]))


@torch.library.custom_op("mylib::numpy_sin", mutates_args={"out"}, device_types="cpu")
def numpy_sin(x: Tensor, out: Tensor) -> None:
    assert x.device == out.device
    x_np = x.numpy()
    out_np = out.numpy()
    np.sin(x_np, out=out_np)


x = torch.from_numpy(rng.standard_normal(3).astype(np.float32))
out = torch.empty(3)
v0 = out._version
ret = numpy_sin(x, out)
print("mutated", ret, torch.allclose(out, torch.sin(x)), out._version > v0)


@torch.library.custom_op("mylib::numpy_mul", mutates_args=())
def numpy_mul(x: Tensor, y: Tensor) -> Tensor:
    return torch.from_numpy(x.numpy() * y.numpy())


@numpy_mul.register_fake
def _(x, y):
    return torch.empty_like(x)


def mul_setup_context(ctx, inputs, output):
    x, y = inputs
    saved_x, saved_y = None, None
    if ctx.needs_input_grad[0]:
        saved_y = y
    if ctx.needs_input_grad[1]:
        saved_x = x
    ctx.save_for_backward(saved_x, saved_y)


def mul_backward(ctx, grad):
    x, y = ctx.saved_tensors
    grad_x = grad * y if y is not None else None
    grad_y = grad * x if x is not None else None
    return grad_x, grad_y


numpy_mul.register_autograd(mul_backward, setup_context=mul_setup_context)
a = torch.from_numpy(rng.standard_normal(4)).requires_grad_()
b = torch.from_numpy(rng.standard_normal(4))
z = numpy_mul(a, b)
z.sum().backward()
print("mul grad", torch.allclose(a.grad, b), b.grad, r(z))
print("gradcheck", torch.autograd.gradcheck(numpy_mul, (torch.randn(3, dtype=torch.double, requires_grad=True),
                                                         torch.randn(3, dtype=torch.double, requires_grad=True))))

examples = [
    [torch.randn(3, 4, 5), (0, 0, 2, 3)],
    [torch.randn(3, 4, 5, requires_grad=True), (1, 1, 3, 4)],
]
for example in examples:
    res = torch.library.opcheck(crop, example)
    print("opcheck", sorted(res.keys()), set(res.values()))


@torch.compile(backend="eager")
def f(img):
    return crop(img, (1, 1, 3, 3)) * 2


print("compiled", torch.equal(f(img.detach()), img.detach()[:, 1:3, 1:3] * 2))

try:
    @torch.library.custom_op("mylib::bad", mutates_args=())
    def bad(x: Tensor):
        return x
except ValueError as e:
    print("ValueError", str(e)[:100])
try:
    @torch.library.custom_op("nonamespace", mutates_args=())
    def bad2(x: Tensor) -> Tensor:
        return x
except ValueError as e:
    print("ValueError", str(e)[:100])
try:
    @torch.library.custom_op("mylib::bad3", mutates_args=())
    def bad3(x) -> Tensor:
        return x
except ValueError as e:
    print("ValueError", str(e)[:100])

"""Mistakes in custom autograd.Functions and their exact PyTorch messages, printed as type(e).__name__ and the
whole message: backward returning too many or too few gradients, gradients of the wrong shape or dtype, saving
non-tensors with save_for_backward, calling a Function instead of .apply, the legacy non-static forward,
in-place Functions without mark_dirty, and a correct Function checked by gradcheck."""

import torch
from torch.autograd import Function

torch.manual_seed(10)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


class TooMany(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2, None


class TooFew(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, grad):
        return grad


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(5)


class WrongDtype(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return (grad * 2).long()


class GradForNonTensor(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad, torch.ones(1)


class SavesNumber(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3.0)
        return x * 3

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class NoBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()


class ReturnsTupleGradList(Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def backward(ctx, grad):
        return [grad]


class InplaceNoDirty(Function):
    @staticmethod
    def forward(ctx, x):
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class InplaceDirty(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DirtyNotOutput(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


class BadCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x ** 2


def run(fn_cls, *args):
    def go():
        x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        out = fn_cls.apply(x, *args)
        out.sum().backward()
        return x.grad
    return go


show("scale_ok", run(Scale, 3.0))
show("too_many", run(TooMany))
show("too_few", lambda: TooFew.apply(torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True))
     .sum().backward())
show("wrong_shape", run(WrongShape))
show("wrong_dtype", run(WrongDtype))
show("grad_for_non_tensor", run(GradForNonTensor, 2.0))
show("saves_number", run(SavesNumber))
show("no_backward", run(NoBackward))
show("grad_list_ok", run(ReturnsTupleGradList))
show("call_instance", lambda: Scale()(torch.ones(2), 2.0))
show("call_forward_directly", lambda: Scale.forward(None, torch.ones(2), 2.0))
show("apply_kwargs", lambda: Scale.apply(torch.ones(2), factor=2.0))


def inplace_leaf():
    x = torch.ones(3, requires_grad=True)
    return InplaceDirty.apply(x)


show("inplace_on_leaf", inplace_leaf)


def inplace_no_dirty():
    x = torch.ones(3, requires_grad=True)
    y = x * 1.0
    out = InplaceNoDirty.apply(y)
    out.sum().backward()
    return x.grad, y._version


show("inplace_without_mark_dirty", inplace_no_dirty)


def inplace_dirty():
    x = torch.ones(3, requires_grad=True)
    y = x * 1.0
    out = InplaceDirty.apply(y)
    out.sum().backward()
    return x.grad, out is y, type(y.grad_fn).__name__


show("inplace_mark_dirty_ok", inplace_dirty)


def dirty_not_output():
    y = torch.ones(3, requires_grad=True) * 1.0
    return DirtyNotOutput.apply(y)


show("dirty_not_returned", dirty_not_output)


def saved_after_modify():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    out = Cube.apply(y)
    y.add_(1)
    out.sum().backward()


show("saved_modified", saved_after_modify)

x64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
show("gradcheck_ok", lambda: torch.autograd.gradcheck(Cube.apply, (x64,)))
show("gradcheck_bad_quiet", lambda: torch.autograd.gradcheck(BadCube.apply, (x64,), raise_exception=False))
show("gradcheck_float32", lambda: torch.autograd.gradcheck(Cube.apply, (torch.randn(3, requires_grad=True),),
                                                          raise_exception=False))
show("gradcheck_no_grad_input", lambda: torch.autograd.gradcheck(Cube.apply, (torch.randn(3, dtype=torch.float64),)))
show("gradgradcheck_ok", lambda: torch.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x64,)))
print("grad_fn name", type(Cube.apply(x64).grad_fn).__name__)
print("values", torch.round(Cube.apply(x64.detach()), decimals=4))

"""The 'Extending PyTorch' note as a learner types it: LinearFunction with ctx.needs_input_grad, MulConstant with
a non-tensor argument, MyCube with a second output for double backward, gradcheck, a custom Linear module built on
the Function, the note's ScalarTensor with __torch_function__ and HANDLED_FUNCTIONS, a Tensor subclass logging
calls, plus the in-place/undefined-gradient rules (mark_dirty, None gradients, set_materialize_grads)."""

import functools
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck

rng = np.random.default_rng(0)


def D(*s):
    return torch.from_numpy(rng.standard_normal(s))


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if VERBOSE:
            print("  needs_input_grad", ctx.needs_input_grad)
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


VERBOSE = True
linear = LinearFunction.apply
inp = D(4, 3).requires_grad_()
w = D(2, 3).requires_grad_()
b = D(2).requires_grad_()
out = linear(inp, w, b)
print("out", out.shape, out.dtype, type(out.grad_fn).__name__, out.grad_fn.name())
out.sum().backward()
print("grads", np.round(w.grad.numpy(), 4).tolist(), np.round(b.grad.numpy(), 4).tolist())
w2 = D(2, 3)
linear(inp, w2, None).sum().backward()
print("ok", torch.allclose(inp.grad[0], w.sum(0) + w2.sum(0)))
VERBOSE = False
test = gradcheck(linear, (D(5, 3).requires_grad_(), D(2, 3).requires_grad_(), D(2).requires_grad_()), eps=1e-6,
                 atol=1e-4)
print("gradcheck", test)
VERBOSE = True


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = MulConstant.apply(x, 2.5)
y.backward(torch.ones(3))
print("MulConstant", y, x.grad)


class MyCube(Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.double, requires_grad=True)
g, = torch.autograd.grad(my_cube(x).sum(), x, create_graph=True)
gg, = torch.autograd.grad(g.sum(), x)
print("cube", g.detach(), gg)
print("gradgradcheck", torch.autograd.gradgradcheck(my_cube, (x,)))


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return "input_features={}, output_features={}, bias={}".format(  # noqa: UP032 (as the note types it)
            self.input_features, self.output_features, self.bias is not None)


m = Linear(3, 2, bias=False)
print(m, [n for n, _ in m.named_parameters()], m.bias)
with torch.no_grad():
    m.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.1]]))
out = m(torch.ones(2, 3))
out.pow(2).sum().backward()
print("module grad", m.weight.grad)

HANDLED_FUNCTIONS = {}


class ScalarTensor:
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)  # noqa: UP032

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(issubclass(t, (torch.Tensor, ScalarTensor)) for t in types):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


@implements(torch.add)
def add(input, other):
    if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor):
        return ScalarTensor(input._N, input._value + other._value)
    return input.tensor() + other if isinstance(input, ScalarTensor) else input + other.tensor()


d = ScalarTensor(5, 2)
print(d, torch.mean(d), mean.__name__)
print("add", torch.add(d, d), torch.add(d, torch.ones(5, 5))[0])
try:
    torch.sum(d)
except TypeError as e:
    print("TypeError:", str(e).splitlines()[0][:60])


class LoggingTensor(torch.Tensor):
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


t = torch.tensor([1.0, -2.0, 3.0]).as_subclass(LoggingTensor)
r = (t * 2).relu().sum()
print(type(r).__name__, r.item(), LoggingTensor.calls[:3])


class Sq(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        ctx.set_materialize_grads(False)
        return x.mul_(x)

    @staticmethod
    def backward(ctx, g):
        return None if g is None else g * 2


a = torch.tensor([1.0, 2.0], requires_grad=True)
z = a.clone()
zz = Sq.apply(z)
print("dirty", zz is z, z._version, zz.grad_fn.name())
zz.sum().backward()
print("grad", a.grad)
try:
    Sq.apply(torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", e)

"""Two advanced autograd tutorials: 'Double Backward with Custom Functions' (Square saving its input, Exp saving
its output, Sinh saving intermediates via mark_non_differentiable-free outputs, a once_differentiable Function
failing on double backward; gradcheck and gradgradcheck) and 'Fusing Convolution and Batch Norm using Custom
Function' (hand-written conv2d backward via torch.nn.grad, a batch norm Function, their fusion checked with
gradcheck against nn.Conv2d + nn.BatchNorm2d, and a few SGD steps)."""

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

rng = np.random.default_rng(7)


def T(*shape):
    return torch.from_numpy(rng.standard_normal(shape))


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x


x = T(3, 3).requires_grad_()
print("Square", torch.autograd.gradcheck(Square.apply, x), torch.autograd.gradgradcheck(Square.apply, x))
y = Square.apply(x)
(gx,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print(type(gx.grad_fn).__name__, gx.requires_grad)
(ggx,) = torch.autograd.grad(gx.sum(), x)
print("second", ggx.unique().tolist())


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


x = T(3, 3).requires_grad_()
print("Exp", torch.autograd.gradcheck(Exp.apply, x), torch.autograd.gradgradcheck(Exp.apply, x))
out = Exp.apply(x)
print("Exp out", type(out.grad_fn).__name__, out.grad_fn.next_functions[0][0].__class__.__name__)


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


x = T(3, 3).requires_grad_()
print("Sinh", torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
s, ex, enx = Sinh.apply(x)
print("outputs", [type(t.grad_fn).__name__ for t in (s, ex, enx)], torch.allclose(s, torch.sinh(x)))


class SinhBad(torch.autograd.Function):
    # an intermediate saved without returning it: double backward cannot see through it
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * (ctx.expx + ctx.expnegx) / 2


x = T(2, 2).requires_grad_()
print("SinhBad first", torch.autograd.gradcheck(SinhBad.apply, x))
print("SinhBad second", torch.autograd.gradgradcheck(SinhBad.apply, x, raise_exception=False))


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 3 * x ** 2


x = T(2).requires_grad_()
(g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
print("once grad", np.round(g.detach().numpy(), 4).tolist(), g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)


# Fusing Convolution and Batch Norm
def convolution_backward(grad_out, X, weight):
    grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    grad_X = F.conv_transpose2d(grad_out, weight)
    return grad_X, grad_input


class Conv2D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, weight):
        ctx.save_for_backward(X, weight)
        return F.conv2d(X, weight)

    @staticmethod
    def backward(ctx, grad_out):
        X, weight = ctx.saved_tensors
        return convolution_backward(grad_out, X, weight)


weight = T(5, 3, 3, 3).requires_grad_()
X = T(10, 3, 7, 7).requires_grad_()
print("Conv2D gradcheck", torch.autograd.gradcheck(Conv2D.apply, (X, weight)))
gi = torch.nn.grad.conv2d_input(X.shape, weight, torch.ones(10, 5, 5, 5, dtype=torch.double))
gw = torch.nn.grad.conv2d_weight(X, weight.shape, torch.ones(10, 5, 5, 5, dtype=torch.double))
gX, gW = convolution_backward(torch.ones(10, 5, 5, 5, dtype=torch.double), X, weight)
print("nn.grad agrees", torch.allclose(gi, gX), torch.allclose(gw, gW), tuple(gw.shape))


def unsqueeze_all(t):
    return t[None, :, None, None]


def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
    tmp = ((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
    tmp *= -1
    d_denom = tmp / (sqrt_var + eps) ** 2
    d_var = d_denom / (2 * sqrt_var)
    d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
    d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
    grad_input = X * unsqueeze_all(d_var * N)
    grad_input += unsqueeze_all(-d_var * sum)
    grad_input *= 2 / ((N - 1) * N)
    grad_input += d_mean_dx
    grad_input *= unsqueeze_all(sqrt_var + eps)
    grad_input += grad_out
    grad_input /= unsqueeze_all(sqrt_var + eps)
    return grad_input


class BatchNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, eps=1e-3):
        sum = X.sum(dim=(0, 2, 3))
        var = X.var(unbiased=True, dim=(0, 2, 3))
        N = X.numel() / X.size(1)
        sqrt_var = torch.sqrt(var)
        ctx.save_for_backward(X)
        ctx.eps = eps
        ctx.sum = sum
        ctx.N = N
        ctx.sqrt_var = sqrt_var
        mean = sum / N
        denom = sqrt_var + eps
        out = X - unsqueeze_all(mean)
        out /= unsqueeze_all(denom)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        X, = ctx.saved_tensors
        return batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps), None


a = T(1, 2, 3, 4).requires_grad_()
print("BatchNorm gradcheck", torch.autograd.gradcheck(BatchNorm.apply, (a,), fast_mode=False))


class FusedConvBN2DFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, conv_weight, eps=1e-3):
        assert X.ndim == 4
        ctx.save_for_backward(X, conv_weight)
        X = F.conv2d(X, conv_weight)
        sum = X.sum(dim=(0, 2, 3))
        var = X.var(unbiased=True, dim=(0, 2, 3))
        N = X.numel() / X.size(1)
        sqrt_var = torch.sqrt(var)
        ctx.eps = eps
        ctx.sum = sum
        ctx.N = N
        ctx.sqrt_var = sqrt_var
        mean = sum / N
        denom = sqrt_var + eps
        out = X - unsqueeze_all(mean)
        out /= unsqueeze_all(denom)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        X, conv_weight, = ctx.saved_tensors
        X_conv_out = F.conv2d(X, conv_weight)
        grad_out = batch_norm_backward(grad_out, X_conv_out, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)
        grad_X, grad_input = convolution_backward(grad_out, X, conv_weight)
        return grad_X, grad_input, None, None, None, None, None


weight = T(5, 3, 3, 3).requires_grad_()
X = T(2, 3, 4, 4).requires_grad_()
print("Fused gradcheck", torch.autograd.gradcheck(FusedConvBN2DFunction.apply, (X, weight)))


class FusedConvBN(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, exp_avg_factor=0.1, eps=1e-3):
        super().__init__()
        weight_shape = (out_channels, in_channels, kernel_size, kernel_size)
        self.conv_weight = torch.nn.Parameter(torch.empty(*weight_shape, dtype=torch.double))
        self.eps = eps

    def forward(self, X):
        return FusedConvBN2DFunction.apply(X, self.conv_weight, self.eps)


fused = FusedConvBN(3, 4, 3)
ref_conv = torch.nn.Conv2d(3, 4, 3, bias=False).double()
ref_bn = torch.nn.BatchNorm2d(4, affine=False, eps=1e-3).double()
w0 = T(4, 3, 3, 3) * 0.3
with torch.no_grad():
    fused.conv_weight.copy_(w0)
    ref_conv.weight.copy_(w0)
opt_f = torch.optim.SGD(fused.parameters(), lr=0.1)
opt_r = torch.optim.SGD(ref_conv.parameters(), lr=0.1)
inp = T(4, 3, 6, 6)
target = T(4, 4, 4, 4)
for step in range(3):
    for opt, fwd in ((opt_f, fused), (opt_r, lambda z: ref_bn(ref_conv(z)))):
        opt.zero_grad()
        loss = F.mse_loss(fwd(inp), target)
        loss.backward()
        opt.step()
    print("step", step, round(loss.item(), 4))
# BatchNorm2d divides by the biased std; the tutorial's Function by the unbiased one
print("weights close", torch.allclose(fused.conv_weight, ref_conv.weight, atol=1e-2))
print("running", np.round(ref_bn.running_mean.numpy(), 4).tolist(), ref_bn.num_batches_tracked.item())

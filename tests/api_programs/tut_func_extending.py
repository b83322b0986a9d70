"""'Extending torch.func with autograd.Function': NumpySin with a separate setup_context and to_numpy, used with
torch.func.grad, vjp and jacrev; NumpySort/NumpyTake with mark_non_differentiable and a hand-written vmap
staticmethod (info.batch_size, in_dims, out_dims); MyCube saving an intermediate as an extra output for
double-differentiation (grad of grad); generate_vmap_rule; and the errors of a Function without setup_context."""

import numpy as np
import torch
from torch.func import grad, jacrev, vjp, vmap

rng = np.random.default_rng(4)


def to_numpy(tensor):
    return tensor.cpu().numpy()


def r(t):
    return np.round(t.detach().double().numpy(), 4).tolist()


class NumpySin(torch.autograd.Function):
    @staticmethod
    def forward(x):
        device = x.device
        x = to_numpy(x)
        return torch.tensor(np.sin(x), device=device), torch.tensor(np.cos(x), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        _, cos = output
        ctx.save_for_backward(x, cos)

    @staticmethod
    def backward(ctx, grad_output, grad_cos):
        x, cos = ctx.saved_tensors
        return grad_output * cos - grad_cos * torch.sin(x)

    @staticmethod
    def vmap(info, in_dims, x):
        x_bdim, = in_dims
        x = x.movedim(x_bdim, 0)
        return NumpySin.apply(x), (0, 0)


def numpy_sin(x):
    y, _ = NumpySin.apply(x)
    return y


x = torch.from_numpy(rng.standard_normal(4))
gx = grad(lambda x: numpy_sin(x).sum())(x)
print("grad", torch.allclose(gx, torch.cos(x)), r(gx))
out, fn = vjp(numpy_sin, x)
print("vjp", r(fn(torch.ones_like(out))[0]))
print("jacrev diag", torch.allclose(jacrev(numpy_sin)(x), torch.diag(torch.cos(x))))
print("vmap", torch.allclose(vmap(numpy_sin)(x.reshape(2, 2)), torch.sin(x.reshape(2, 2))))
y = x.clone().requires_grad_()
s, c = NumpySin.apply(y)
(s + c).sum().backward()
print("both outputs", torch.allclose(y.grad, torch.cos(x) - torch.sin(x)), type(s.grad_fn).__name__)


class NumpySort(torch.autograd.Function):
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        return (torch.tensor(result, device=device), torch.tensor(ind, device=device),
                torch.tensor(ind_inv, device=device))

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

    @staticmethod
    def vmap(info, in_dims, x, dim):
        x_bdim, _ = in_dims
        x = x.movedim(x_bdim, 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        return NumpySort.apply(x, dim + 1), (0, 0, 0)


class NumpyTake(torch.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim

        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)

        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


x = torch.from_numpy(rng.standard_normal((2, 3)))
result = vmap(numpy_sort)(x)
print("vmap sort", torch.allclose(result, x.sort(dim=-1).values), r(result[0]))
srt, ind, ind_inv = NumpySort.apply(x.requires_grad_(), 1)
print("requires_grad", srt.requires_grad, ind.requires_grad, ind_inv.requires_grad, ind.dtype)
w = torch.arange(3.0, dtype=torch.double)
g = grad(lambda x: (numpy_sort(x) * w).sum())(x.detach())
print("sort grad", r(g))
print("per-row grad", torch.allclose(vmap(grad(lambda row: (numpy_sort(row) * w).sum()))(x.detach()), g))


class MyCube(torch.autograd.Function):
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

    generate_vmap_rule = True


def my_cube(x):
    result, _ = MyCube.apply(x)
    return result


x = torch.tensor(1.5, dtype=torch.double)
print("ggrad", grad(grad(my_cube))(x).item(), grad(my_cube)(x).item())
xs = torch.linspace(-1, 1, 5, dtype=torch.double)
print("vmap ggrad", r(vmap(grad(grad(my_cube)))(xs)))


class NoSetup(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


print("plain apply", r(NoSetup.apply(torch.ones(2, dtype=torch.double))))
for transform in (grad, vmap):
    try:
        transform(lambda t: NoSetup.apply(t).sum())(torch.ones(2))
    except RuntimeError as e:
        print(transform.__name__, "RuntimeError", str(e)[:80])


class NoVmap(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g


try:
    vmap(NoVmap.apply)(torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError", str(e)[:120])
print("grad ok", r(grad(lambda t: NoVmap.apply(t).sum())(torch.ones(2, dtype=torch.double))))

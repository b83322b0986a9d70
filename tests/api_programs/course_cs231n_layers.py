"""CS231n assignment 2 in PyTorch: affine, ReLU, batchnorm, layernorm and inverted dropout written by hand with
their backward passes, checked against torch.nn.functional and autograd, with finite differences in float64 and
torch.autograd.gradcheck/gradgradcheck on a custom Function; then a two-layer net trained by hand-written SGD."""

import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(231)


def T(*s, dtype=np.float64):
    return torch.from_numpy(rng.standard_normal(s).astype(dtype))


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def rel_error(x, y):
    """The assignments' relative error, max |x - y| / max(1e-8, |x| + |y|)."""
    return ((x - y).abs() / torch.clamp(x.abs() + y.abs(), min=1e-8)).max().item()


def eval_numerical_gradient_array(f, x, df, h=1e-5):
    """Centered differences of f at x contracted with the upstream gradient df, one element at a time."""
    grad = torch.zeros_like(x)
    flat, gflat = x.view(-1), grad.view(-1)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + h
        pos = f(x).clone()
        flat[i] = old - h
        neg = f(x).clone()
        flat[i] = old
        gflat[i] = ((pos - neg) * df).sum() / (2 * h)
    return grad


def affine_forward(x, w, b):
    out = x.reshape(x.shape[0], -1) @ w + b
    return out, (x, w, b)


def affine_backward(dout, cache):
    x, w, b = cache
    dx = (dout @ w.t()).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).t() @ dout
    return dx, dw, dout.sum(dim=0)


def relu_forward(x):
    return x.clamp(min=0), x


def relu_backward(dout, x):
    return dout * (x > 0)


def batchnorm_forward(x, gamma, beta, bn_param):
    mode, eps, momentum = bn_param["mode"], bn_param.get("eps", 1e-5), bn_param.get("momentum", 0.9)
    D = x.shape[1]
    running_mean = bn_param.get("running_mean", torch.zeros(D, dtype=x.dtype))
    running_var = bn_param.get("running_var", torch.zeros(D, dtype=x.dtype))
    cache = None
    if mode == "train":
        mu, var = x.mean(dim=0), x.var(dim=0, unbiased=False)
        xhat = (x - mu) / torch.sqrt(var + eps)
        out = gamma * xhat + beta
        cache = (xhat, gamma, var, eps)
        running_mean = momentum * running_mean + (1 - momentum) * mu
        running_var = momentum * running_var + (1 - momentum) * var
    elif mode == "test":
        out = gamma * (x - running_mean) / torch.sqrt(running_var + eps) + beta
    else:
        raise ValueError(f'Invalid forward batchnorm mode "{mode}"')
    bn_param["running_mean"], bn_param["running_var"] = running_mean, running_var
    return out, cache


def batchnorm_backward_alt(dout, cache):
    xhat, gamma, var, eps = cache
    N = dout.shape[0]
    dbeta, dgamma = dout.sum(0), (dout * xhat).sum(0)
    dxhat = dout * gamma
    dx = (N * dxhat - dxhat.sum(0) - xhat * (dxhat * xhat).sum(0)) / (N * torch.sqrt(var + eps))
    return dx, dgamma, dbeta


def layernorm_forward(x, gamma, beta, eps=1e-5):
    out, cache = batchnorm_forward(x.t(), torch.ones(x.shape[0], dtype=x.dtype), torch.zeros(x.shape[0],
                                   dtype=x.dtype), {"mode": "train", "eps": eps})
    xhat = out.t()
    return gamma * xhat + beta, (xhat, gamma, cache)


def dropout_forward(x, p, mode, mask_source):
    if mode == "train":
        mask = (mask_source < p) / p  # inverted dropout, p is the keep probability as in the assignment
        return x * mask, mask
    return x, None


# Affine layer against F.linear and autograd.
x, w, b = T(4, 2, 3), T(6, 5), T(5)
out, cache = affine_forward(x, w, b)
print("affine out", tuple(out.shape), out.dtype, r(out), rel_error(out, F.linear(x.flatten(1), w.t(), b)) < 1e-12)
dout = T(4, 5)
dx, dw, db = affine_backward(dout, cache)
dx_num = eval_numerical_gradient_array(lambda z: affine_forward(z, w, b)[0], x.clone(), dout)
dw_num = eval_numerical_gradient_array(lambda z: affine_forward(x, z, b)[0], w.clone(), dout)
print("affine rel errors", [rel_error(a, c) < 1e-7 for a, c in ((dx, dx_num), (dw, dw_num))], r(db))
xs = [t.clone().requires_grad_() for t in (x, w, b)]
affine_forward(*xs)[0].backward(dout)
print("affine autograd", all(torch.allclose(g, t.grad) for g, t in zip((dx, dw, db), xs)), xs[0].grad.shape)

# ReLU and its subgradient at zero.
xr = torch.linspace(-0.5, 0.5, steps=12, dtype=torch.float64).reshape(3, 4)
o, c = relu_forward(xr)
print("relu", r(o, 12), torch.equal(o, F.relu(xr)), torch.equal(o, torch.relu(xr)))
d = relu_backward(torch.ones_like(xr), c)
print("relu backward", d.dtype, d.sum().item(), r(d, 12))

# Batchnorm: train statistics, running averages, test mode, and the alternative backward.
N, D = 50, 3
xb = 5 * T(N, D) + 12
gamma, beta = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), torch.tensor([11.0, 12.0, 13.0],
                                                                              dtype=torch.float64)
bn_param = {"mode": "train"}
out, cache = batchnorm_forward(xb, gamma, beta, bn_param)
print("bn means", r(out.mean(0)), "stds", r(out.std(0, unbiased=False)))
ref = F.batch_norm(xb, None, None, gamma, beta, training=True, eps=1e-5)
print("bn vs F.batch_norm", rel_error(out, ref) < 1e-10, r(bn_param["running_mean"], 3))
for _ in range(20):
    batchnorm_forward(5 * T(N, D) + 12, gamma, beta, bn_param)
bn_param["mode"] = "test"
out_t, _ = batchnorm_forward(5 * T(N, D) + 12, torch.ones(D, dtype=torch.float64), torch.zeros(D,
                                                                                                dtype=torch.float64),
                             bn_param)
print("bn test mean/std", r(out_t.mean(0), 3), r(out_t.std(0), 3))
dout = T(N, D)
dx, dgamma, dbeta = batchnorm_backward_alt(dout, cache)
xg = xb.clone().requires_grad_()
gg, bg = gamma.clone().requires_grad_(), beta.clone().requires_grad_()
F.batch_norm(xg, None, None, gg, bg, training=True).backward(dout)
print("bn backward", rel_error(dx, xg.grad) < 1e-8, rel_error(dgamma, gg.grad) < 1e-10, r(dbeta, 3))
try:
    batchnorm_forward(xb, gamma, beta, {"mode": "eval"})
except ValueError as e:
    print("bn bad mode", type(e).__name__, e)

# Layernorm through the transposed batchnorm trick.
xl = T(4, 5)
g5, b5 = T(5), T(5)
out, _ = layernorm_forward(xl, g5, b5)
print("layernorm", r(out), rel_error(out, F.layer_norm(xl, (5,), g5, b5)) < 1e-10)
ln = torch.nn.LayerNorm(5, dtype=torch.float64)
print("LayerNorm module", ln, ln.weight.dtype, tuple(ln.normalized_shape), ln.eps, ln.elementwise_affine)

# Inverted dropout with a mask drawn from numpy, then nn.Dropout's eval identity.
xd = T(500, 500) + 10
u = torch.from_numpy(rng.random((500, 500)))
for p in (0.25, 0.4, 0.7):
    out, mask = dropout_forward(xd, p, "train", u)
    test_out, _ = dropout_forward(xd, p, "test", u)
    print(f"dropout p={p:.2f}", round(xd.mean().item(), 4), round(out.mean().item(), 2),
          round((out == 0).double().mean().item(), 3), torch.equal(test_out, xd))
drop = torch.nn.Dropout(p=0.5).eval()
print("nn.Dropout", drop, torch.equal(drop(xd), xd), drop.training)
try:
    torch.nn.Dropout(p=1.5)
except ValueError as e:
    print("Dropout(p=1.5)", type(e).__name__, e)
try:
    torch.nn.Dropout1d(0.2)(xd.view(1, 1, 500, 500))
except RuntimeError as e:
    print("Dropout1d 4-D", type(e).__name__, e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    spatial = torch.nn.Dropout3d(0.2).eval()(xd[:3, :4])
print("Dropout3d 2-D", torch.equal(spatial, xd[:3, :4]), [str(w.message) for w in caught])


# gradcheck and gradgradcheck of a hand-written Function.
class AffineReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        a = x @ w + b
        ctx.save_for_backward(x, w, a)
        return a.clamp(min=0)

    @staticmethod
    def backward(ctx, g):
        x, w, a = ctx.saved_tensors
        da = g * (a > 0).to(g.dtype)
        return da @ w.t(), x.t() @ da, da.sum(0)


inputs = tuple(t.clone().requires_grad_() for t in (T(3, 4), T(4, 2), T(2)))
print("gradcheck", gradcheck(AffineReLU.apply, inputs, eps=1e-6, atol=1e-4))
print("gradgradcheck tanh", gradgradcheck(lambda a, bb: torch.tanh(a @ bb), inputs[:2]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        gradcheck(AffineReLU.apply, tuple(t.detach().float().requires_grad_() for t in inputs), raise_exception=True)
    except Exception as e:  # noqa: BLE001
        print("gradcheck float32", type(e).__name__, isinstance(e, RuntimeError), str(e).splitlines()[0])
print("gradcheck warnings", len(caught), caught[0].category.__name__, str(caught[0].message).strip())


class WrongBackward(AffineReLU):
    """A classic bug: the weight gradient forgets to mask by the ReLU."""

    @staticmethod
    def backward(ctx, g):
        dx, _, db = AffineReLU.backward(ctx, g)
        x, _, _ = ctx.saved_tensors
        return dx, x.t() @ g, db


small = (inputs[0][:2, :2].detach().clone(), T(2, 2).requires_grad_(), torch.zeros(2, dtype=torch.float64))
with torch.no_grad():
    small[1].copy_(torch.tensor([[1.0, -1.0], [0.5, -2.0]]))
    small[0].copy_(torch.tensor([[0.5, 1.0], [1.5, 0.25]]))
try:
    gradcheck(WrongBackward.apply, small)
except RuntimeError as e:
    print("wrong backward", type(e).__name__)
    print(e)
print("no raise", gradcheck(WrongBackward.apply, small, raise_exception=False))


class SquareOnce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


xo = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)
go = torch.ones(2, dtype=torch.float64, requires_grad=True)
(g1,) = torch.autograd.grad(SquareOnce.apply(xo), xo, go, create_graph=True)
print("once_differentiable", g1.tolist(), g1.requires_grad, torch.autograd.grad(g1.sum(), [xo, go], allow_unused=True))
try:
    g1.sum().backward()
except RuntimeError as e:
    print("double backward", e)
bad = tuple(t.clone().requires_grad_() for t in inputs)
print("gradcheck linear", gradcheck(lambda a, ww, bb: a @ ww + bb, bad, raise_exception=False))

# A two-layer net trained with the hand-written layers (float32), loss from F.cross_entropy.
X = torch.from_numpy(rng.standard_normal((40, 6)).astype(np.float32))
y = torch.from_numpy((rng.random(40) * 3).astype(np.int64))
W1 = torch.from_numpy((0.3 * rng.standard_normal((6, 10))).astype(np.float32)).requires_grad_()
b1 = torch.zeros(10, requires_grad=True)
W2 = torch.from_numpy((0.3 * rng.standard_normal((10, 3))).astype(np.float32)).requires_grad_()
b2 = torch.zeros(3, requires_grad=True)
for it in range(30):
    h, _ = relu_forward(affine_forward(X, W1, b1)[0])
    scores, _ = affine_forward(h, W2, b2)
    loss = F.cross_entropy(scores, y) + 0.5 * 1e-3 * (W1.pow(2).sum() + W2.pow(2).sum())
    loss.backward()
    with torch.no_grad():
        for p in (W1, b1, W2, b2):
            p -= 0.5 * p.grad
            p.grad.zero_()
    if it % 10 == 0 or it == 29:
        acc = (scores.argmax(1) == y).float().mean()
        print("iter", it, round(loss.item(), 4), round(acc.item(), 4), loss.grad_fn.name())

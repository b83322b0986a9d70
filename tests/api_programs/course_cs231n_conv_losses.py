"""CS231n assignments 1 and 2: the naive and vectorized SVM and softmax losses with their gradients, naive
convolution and max pooling with loops, checked against F.conv2d, F.max_pool2d, F.multi_margin_loss and
F.cross_entropy; im2col through F.unfold, spatial batchnorm and group norm by reshapes, and the shape errors."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(2310)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s))


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def svm_loss_naive(W, X, y, reg):
    dW = torch.zeros_like(W)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i] @ W
        correct = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            margin = scores[j] - correct + 1
            if margin > 0:
                loss += margin
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    loss = loss / X.shape[0] + reg * torch.sum(W * W)
    return loss, dW / X.shape[0] + 2 * reg * W


def svm_loss_vectorized(W, X, y, reg):
    N = X.shape[0]
    scores = X @ W
    correct = scores[torch.arange(N), y].unsqueeze(1)
    margins = torch.clamp(scores - correct + 1, min=0)
    margins[torch.arange(N), y] = 0
    loss = margins.sum() / N + reg * (W * W).sum()
    binary = (margins > 0).to(X.dtype)
    binary[torch.arange(N), y] = -binary.sum(dim=1)
    return loss, X.t() @ binary / N + 2 * reg * W


def softmax_loss_vectorized(W, X, y, reg):
    N = X.shape[0]
    scores = X @ W
    scores = scores - scores.max(dim=1, keepdim=True).values
    probs = scores.exp() / scores.exp().sum(dim=1, keepdim=True)
    loss = -probs[torch.arange(N), y].log().mean() + reg * (W * W).sum()
    probs[range(N), y] -= 1
    return loss, X.t() @ probs / N + 2 * reg * W


def conv_forward_naive(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W_ = x.shape
    F_, _, HH, WW = w.shape
    Ho, Wo = 1 + (H + 2 * pad - HH) // stride, 1 + (W_ + 2 * pad - WW) // stride
    xp = F.pad(x, (pad, pad, pad, pad), mode="constant", value=0)
    out = torch.zeros(N, F_, Ho, Wo, dtype=x.dtype)
    for n in range(N):
        for f in range(F_):
            for i in range(Ho):
                for j in range(Wo):
                    window = xp[n, :, i * stride:i * stride + HH, j * stride:j * stride + WW]
                    out[n, f, i, j] = (window * w[f]).sum() + b[f]
    return out


def max_pool_forward_naive(x, pool_param):
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    N, C, H, W_ = x.shape
    Ho, Wo = 1 + (H - ph) // s, 1 + (W_ - pw) // s
    out = x.new_empty((N, C, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            out[:, :, i, j] = x[:, :, i * s:i * s + ph, j * s:j * s + pw].amax(dim=(-1, -2))
    return out


# SVM: naive loop against the vectorized version, multi_margin_loss and autograd.
W = 0.01 * T(12, 4)
X, y = T(9, 12), torch.from_numpy(rng.integers(0, 4, 9))
loss_n, grad_n = svm_loss_naive(W, X, y, 0.05)
loss_v, grad_v = svm_loss_vectorized(W, X, y, 0.05)
print("svm loss", round(float(loss_n), 4), round(loss_v.item(), 4), torch.allclose(grad_n, grad_v))
mm = F.multi_margin_loss(X @ W, y, reduction="sum") * 4 / 9  # PyTorch divides each row by the class count
print("multi_margin", round(mm.item(), 4), round((loss_v - 0.05 * (W * W).sum()).item(), 4))
Wg = W.clone().requires_grad_()
svm_loss_vectorized(Wg, X, y, 0.05)[0].backward()
print("svm autograd", torch.allclose(Wg.grad, grad_v), r(Wg.grad))

# Softmax: sanity check loss near -log(0.1) for ten classes, analytic gradient against autograd and CE.
W10 = 0.0001 * T(12, 10)
y10 = torch.from_numpy(rng.integers(0, 10, 9))
loss_s, grad_s = softmax_loss_vectorized(W10, X, y10, 0.0)
print("softmax loss", round(loss_s.item(), 4), "-log(0.1) =", round(-np.log(0.1), 4))
Wg = W10.clone().requires_grad_()
ce = F.cross_entropy(X @ Wg, y10)
ce.backward()
print("softmax vs CE", round(ce.item(), 4), torch.allclose(Wg.grad, grad_s), ce.grad_fn.name())
print("log_softmax gather", round(-F.log_softmax(X @ W10, 1).gather(1, y10[:, None]).mean().item(), 4))
print("nll_loss", round(F.nll_loss(F.log_softmax(X @ W10, dim=1), y10).item(), 4))

# Naive convolution against F.conv2d, with padding and stride.
x = T(2, 3, 6, 6)
w, b = T(4, 3, 3, 3), T(4)
for stride, pad in ((1, 1), (2, 1), (2, 0)):
    out = conv_forward_naive(x, w, b, {"stride": stride, "pad": pad})
    ref = F.conv2d(x, w, b, stride=stride, padding=pad)
    print("conv", stride, pad, tuple(out.shape), torch.allclose(out, ref), r(out, 3))

# im2col with F.unfold and the matching matmul.
cols = F.unfold(x, kernel_size=3, padding=1, stride=1)
out_cols = (w.view(4, -1) @ cols + b.view(1, 4, 1)).view(2, 4, 6, 6)
print("im2col", tuple(cols.shape), torch.allclose(out_cols, F.conv2d(x, w, b, padding=1)))
back = F.fold(cols, output_size=(6, 6), kernel_size=3, padding=1)
print("fold counts", r(back[0, 0] / x[0, 0], 6))

# Naive max pooling and its gradient routing.
xp = T(2, 3, 4, 4)
out = max_pool_forward_naive(xp, {"pool_height": 2, "pool_width": 2, "stride": 2})
ref, idx = F.max_pool2d(xp, 2, stride=2, return_indices=True)
print("max pool", torch.equal(out, ref), idx[0, 0].tolist(), idx.dtype)
xg = xp.clone().requires_grad_()
F.max_pool2d(xg, kernel_size=2, stride=2).sum().backward()
print("pool grad", xg.grad.sum().item(), xg.grad[0, 0].tolist()[0])
unpooled = F.max_unpool2d(ref, idx, kernel_size=2)
print("unpool", tuple(unpooled.shape), torch.equal(unpooled != 0, xg.grad != 0))

# Spatial batchnorm and group norm by reshaping to 2-D.
xs = 4 * T(2, 3, 4, 5) + 10
flat = xs.permute(0, 2, 3, 1).reshape(-1, 3)
sbn = F.batch_norm(flat, None, None, training=True).reshape(2, 4, 5, 3).permute(0, 3, 1, 2)
print("spatial bn", torch.allclose(sbn, F.batch_norm(xs, None, None, training=True)), r(sbn.mean((0, 2, 3)), 3))
G = 3
xg = xs.reshape(2, G, -1)
gn = ((xg - xg.mean(-1, keepdim=True)) / torch.sqrt(xg.var(-1, unbiased=False, keepdim=True) + 1e-5)).reshape_as(xs)
print("group norm", torch.allclose(gn, F.group_norm(xs, G), atol=1e-10), r(gn, 3))
bn2d = torch.nn.BatchNorm2d(3, dtype=torch.float64)
bn2d(xs)
print("BatchNorm2d running", r(bn2d.running_mean, 3), r(bn2d.running_var, 3), bn2d.num_batches_tracked.item())

# Typical shape mistakes.
for name, fn in (
    ("conv channels", lambda: F.conv2d(x, T(4, 2, 3, 3))),
    ("kernel too big", lambda: F.conv2d(x, T(4, 3, 9, 9))),
    ("pool too big", lambda: F.max_pool2d(xp, 5)),
    ("matmul", lambda: X @ T(11, 4)),
    ("ce target dtype", lambda: F.cross_entropy(X @ W10, y10.double())),
    ("ce target range", lambda: F.cross_entropy(X @ W10, y10 + 10)),
):
    try:
        fn()
    except (RuntimeError, IndexError, ValueError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])

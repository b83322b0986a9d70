"""Second derivatives of the ops meta-learners differentiate twice, verified the way library authors do it:
torch.autograd.gradcheck and gradgradcheck in float64 over activations, normalizations, pooling, padding, gathers and
interpolation (not cdist: PyTorch's _cdist_backward has no derivative), plus the second derivative's values for
closed-form cases and gradgradcheck's refusals."""

import torch
from torch.autograd import gradcheck, gradgradcheck

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def inputs(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


x4 = inputs(1, 2, 3, 3)
w4 = inputs(2, 2, 3, 3)
v4 = inputs(3)
cases = {
    "conv2d stride/dilation": (lambda x, w: F.conv2d(x, w, stride=2, dilation=1, padding=1), (x4, w4)),
    "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w.transpose(0, 1), stride=2), (x4, w4)),
    "batch_norm train": (lambda x: F.batch_norm(x, None, None, training=True), (x4,)),
    "layer_norm": (lambda x, w: F.layer_norm(x, (3,), w), (x4, v4)),
    "group_norm": (lambda x: F.group_norm(x, 2), (x4,)),
    "avg_pool2d ceil": (lambda x: F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False), (x4,)),
    "lp_pool2d": (lambda x: F.lp_pool2d(x.abs() + 0.5, 2.0, 2), (x4,)),
    "softmax/log_softmax": (lambda x: F.softmax(x, 1) * F.log_softmax(x, -1), (x4,)),
    "gelu tanh": (lambda x: F.gelu(x, approximate="tanh"), (x4,)),
    "silu/mish": (lambda x: F.silu(x) + F.mish(x), (x4,)),
    "elu/selu/celu": (lambda x: F.elu(x, 0.7) + F.selu(x) + F.celu(x, 1.3), (x4,)),
    "softplus beta": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), (x4,)),
    "pad reflect": (lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect").pow(2), (x4,)),
    "pad replicate": (lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate").pow(2), (x4,)),
    "interp bilinear": (lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False).pow(2),
                        (x4,)),
    "gather/where": (lambda x: torch.where(x > 0, x, 0.1 * x).gather(3, torch.tensor([[[[0, 2]]]]).expand(1, 2, 3, 2))
                     .pow(3), (x4,)),
    "logsumexp/norm": (lambda x: x.logsumexp(dim=(2, 3)) * x.norm(dim=1).sum(), (x4,)),
    "cosine_similarity": (lambda x, w: F.cosine_similarity(x[:, :, :3, :3].flatten(1)[:1], w.flatten(1)[:, :27]),
                          (x4, w4)),
    "smooth_l1/huber": (lambda x: F.smooth_l1_loss(x, torch.zeros_like(x), beta=0.5) + F.huber_loss(x, x.detach() * 0,
                                                                                                    delta=0.8), (x4,)),
}
for name, (fn, args) in cases.items():
    ok1 = gradcheck(fn, args, eps=1e-6, atol=1e-5)
    ok2 = gradgradcheck(fn, args, eps=1e-6, atol=1e-5)
    print(f"{name:24s} gradcheck {ok1} gradgradcheck {ok2}")

# closed-form second derivatives
t = torch.linspace(-2, 2, 5, dtype=torch.float64, requires_grad=True)
for name, f in [("tanh", torch.tanh), ("sigmoid", torch.sigmoid), ("softplus", F.softplus), ("gelu", F.gelu)]:
    (d1,) = torch.autograd.grad(f(t).sum(), t, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t)
    print(name, "f''", d2.round(decimals=4).tolist())
(d1,) = torch.autograd.grad(F.relu(t).sum(), t, create_graph=True)
print("relu f' requires_grad", d1.requires_grad, "grad_fn", d1.grad_fn.name())
(d2,) = torch.autograd.grad(d1.sum(), t, allow_unused=True)
print("relu f''", d2)

# gradgradcheck's refusals
for bad in [lambda: gradgradcheck(lambda x: x.pow(2), (torch.randn(3, requires_grad=True),)),
            lambda: gradcheck(lambda x: x.pow(2), (torch.randn(3, dtype=torch.float64),)),
            lambda: gradgradcheck(lambda x: (x * x.detach().sum()), (inputs(3),), atol=1e-10, raise_exception=False)]:
    try:
        print("result", bad())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

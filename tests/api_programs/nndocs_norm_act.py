"""torch.nn normalization layers and activations as their docstrings show them: BatchNorm/InstanceNorm/GroupNorm/
LayerNorm/RMSNorm/LocalResponseNorm with affine and track_running_stats variants, running statistics after a few
training steps, momentum=None (cumulative average), eval versus train; every activation with its parameters, its
repr, values on a fixed grid and its gradient; and the errors of shape mistakes."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


def det(m):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(1.0 + 0.1 * torch.arange(p.numel(), dtype=p.dtype).reshape(p.shape) if "weight" in name
                    else 0.05 * torch.arange(p.numel(), dtype=p.dtype).reshape(p.shape))
    return m


batches = [T(6, 3, 5) * 2 + 1 for _ in range(3)]
for m in [nn.BatchNorm1d(3), nn.BatchNorm1d(3, affine=False), nn.BatchNorm1d(3, momentum=None),
          nn.BatchNorm1d(3, momentum=0.5, eps=1e-3), nn.BatchNorm1d(3, track_running_stats=False),
          nn.InstanceNorm1d(3, affine=True, track_running_stats=True), nn.InstanceNorm1d(3)]:
    det(m).train()
    for b in batches:
        y = m(b)
    print(m, r(y, 4))
    if m.running_mean is not None:
        print("  running", r(m.running_mean), r(m.running_var), m.num_batches_tracked.item())
    m.eval()
    print("  eval", r(m(batches[0]), 4), sorted(k for k in m.state_dict()))
bn = nn.BatchNorm1d(3)
print("2d input", r(det(bn)(T(8, 3)), 3), r(bn.running_var))
bn2 = det(nn.BatchNorm2d(4))
x4 = T(2, 4, 3, 3)
y = bn2(x4)
y.pow(2).sum().backward()
print(bn2, r(y, 4), r(bn2.weight.grad, 4), r(bn2.bias.grad, 4))
bn3 = det(nn.BatchNorm3d(2, affine=False))
print(bn3, r(bn3(T(2, 2, 2, 3, 3)), 4), r(bn3.running_mean))
bn2.reset_running_stats()
print("reset", r(bn2.running_mean), r(bn2.running_var), bn2.num_batches_tracked)
err(lambda: nn.BatchNorm1d(3)(T(1, 3)))
err(lambda: nn.BatchNorm1d(3)(T(4, 3, 2, 2)))
err(lambda: nn.BatchNorm2d(3)(T(2, 4, 2, 2)))
err(lambda: nn.InstanceNorm1d(3)(T(2, 3, 1)))

inorm = det(nn.InstanceNorm2d(4, affine=True))
print(inorm, r(inorm(x4), 4), r(nn.InstanceNorm3d(2)(T(1, 2, 2, 3, 3)), 4))
for m in [nn.GroupNorm(2, 4), nn.GroupNorm(4, 4), nn.GroupNorm(1, 4, affine=False), nn.GroupNorm(2, 4, eps=1e-2)]:
    print(det(m), r(m(x4), 4))
err(lambda: nn.GroupNorm(3, 4))
err(lambda: nn.GroupNorm(2, 4)(T(2, 6, 3)))
ln = det(nn.LayerNorm([3, 3]))
print(ln, r(ln(x4), 4), tuple(ln.weight.shape))
for m in [nn.LayerNorm(3, elementwise_affine=False), nn.LayerNorm(3, bias=False), nn.RMSNorm([3, 3]),
          nn.RMSNorm(3, eps=1e-2, elementwise_affine=False), nn.LocalResponseNorm(2),
          nn.LocalResponseNorm(3, alpha=0.01, beta=0.5, k=2.0)]:
    print(det(m), r(m(x4), 4), sorted(n for n, _ in m.named_parameters()))
err(lambda: nn.LayerNorm([4, 3])(x4))
err(lambda: nn.RMSNorm(4)(x4))

# activations on a fixed grid
g = torch.linspace(-3, 3, 13, dtype=torch.float64).requires_grad_(True)
acts = [nn.ReLU(), nn.ReLU6(), nn.LeakyReLU(0.2), nn.PReLU(), nn.PReLU(num_parameters=1, init=0.1),
        nn.ELU(alpha=0.7), nn.CELU(alpha=2.0), nn.SELU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(),
        nn.Mish(), nn.Hardswish(), nn.Hardsigmoid(), nn.Hardtanh(-2.0, 1.5), nn.Hardshrink(1.2),
        nn.Softshrink(0.8), nn.Tanhshrink(), nn.Threshold(0.5, -1.0), nn.Softplus(beta=2.0, threshold=3.0),
        nn.Softsign(), nn.LogSigmoid(), nn.Sigmoid(), nn.Tanh(), nn.RReLU(0.1, 0.3).eval()]
for a in acts:
    if isinstance(a, nn.PReLU):
        a = a.double()
    y = a(g)
    (gr,) = torch.autograd.grad(y.sum(), g)
    print(a, r(y[::3], 5), r(gr[::3], 5))
print("rrelu eval slope", (0.1 + 0.3) / 2, r(nn.RReLU(0.1, 0.3).eval()(torch.tensor([-2.0])), 1))
print("rrelu train", bool((nn.RReLU()(torch.tensor([-1.0] * 50)) < 0).all()))
z = T(2, 4)
for a in [nn.Softmax(dim=1), nn.Softmin(dim=1), nn.LogSoftmax(dim=0), nn.GLU(), nn.GLU(dim=0)]:
    print(a, r(a(z), 4))
print(nn.Softmax2d(), r(nn.Softmax2d()(T(2, 3, 2, 2)).sum(1), 4), r(nn.Softmax2d()(T(3, 2, 2)), 3))
mha_like = nn.Softmax(dim=-1)(torch.tensor([[0.0, float("-inf")], [float("-inf"), float("-inf")]]))
print("softmax -inf rows", mha_like.tolist())
pr = nn.PReLU(3, init=0.2)
with torch.no_grad():
    pr.weight.copy_(torch.tensor([0.1, 0.2, 0.3]))
out = pr(-torch.ones(2, 3, 2))
out.sum().backward()
print(pr, out[0, :, 0].tolist(), pr.weight.grad.tolist())
err(lambda: nn.GLU()(T(2, 3)))
err(lambda: nn.PReLU(3)(T(2, 4)))
err(lambda: nn.Softmax2d()(T(2, 3)))
err(lambda: nn.Threshold(0.1)(z))
err(lambda: nn.Hardtanh(1.0, -1.0))
err(lambda: nn.RReLU(0.5, 0.1)(z))
err(lambda: nn.SELU()(torch.arange(3)))
err(lambda: nn.LeakyReLU()(torch.arange(3, dtype=torch.int32)))
err(lambda: nn.CELU(alpha=0.0)(z))
err(lambda: nn.Softshrink(-0.5)(z))
err(lambda: nn.LocalResponseNorm(2)(T(3, 4)))
err(lambda: nn.functional.batch_norm(x4, torch.zeros(4), None, training=False))
err(lambda: nn.functional.layer_norm(x4, (3,), None, torch.ones(4)))

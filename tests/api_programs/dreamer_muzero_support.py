"""MuZero's value and reward heads: the invertible h(x) transform, scalar <-> categorical support with
floor/scatter, min-max normalised hidden states, gradient scaling by hooks and detach, and soft-target cross-entropy."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)
S = 5  # support -S..S
EPS = 0.001


def h(x):
    return torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + EPS * x


def h_inv(x):
    return torch.sign(x) * (((torch.sqrt(1 + 4 * EPS * (torch.abs(x) + 1 + EPS)) - 1) / (2 * EPS)) ** 2 - 1)


def scalar_to_support(x):
    x = h(x).clamp(-S, S)
    floor = x.floor()
    prob = x - floor
    logits = torch.zeros(*x.shape, 2 * S + 1)
    logits.scatter_(-1, (floor + S).long().unsqueeze(-1), (1 - prob).unsqueeze(-1))
    idx = floor + S + 1
    prob = prob.masked_fill(2 * S < idx, 0.0)
    idx = idx.masked_fill(2 * S < idx, 0.0)
    logits.scatter_(-1, idx.long().unsqueeze(-1), prob.unsqueeze(-1))
    return logits


def support_to_scalar(logits):
    probs = torch.softmax(logits, -1)
    support = torch.arange(-S, S + 1, dtype=probs.dtype).expand(probs.shape)
    return h_inv(torch.sum(support * probs, -1))


v = torch.tensor([-30.0, -1.5, 0.0, 0.25, 7.0, 29.0, 1e4])
print(h(v), h_inv(h(v)))
sup = scalar_to_support(v)
print(sup)
print(sup.sum(-1), (sup * torch.arange(-S, S + 1.0)).sum(-1))
print(support_to_scalar(torch.log(sup + 1e-12)))
print(torch.arange(-S, S + 1).dtype, torch.arange(-S, S + 1.0).dtype, torch.arange(-2, 2, 0.5))


def normalize_hidden(s):
    mn = s.min(1, keepdim=True)[0]
    mx = s.max(1, keepdim=True)[0]
    scale = mx - mn
    scale[scale < 1e-5] += 1e-5
    return (s - mn) / scale


s = torch.randn(3, 6)
s[1] = 2.0
ns = normalize_hidden(s)
print(ns, ns.amin(1), ns.amax(1))


def scale_gradient(t, scale):
    return t * scale + t.detach() * (1 - scale)


x = torch.randn(4, requires_grad=True)
y = scale_gradient(x * 2, 0.5)
y.sum().backward()
print(torch.equal(y, x * 2), x.grad)
x.grad = None
z = x * 3
handle = z.register_hook(lambda g: g * 0.25)
z.sum().backward()
print(x.grad, handle.id >= 0)
handle.remove()
x.grad.zero_()
(x * 3).sum().backward()
print(x.grad)

# soft-target cross-entropy, as MuZero's value/reward loss, and against F.cross_entropy
logits = torch.randn(7, 2 * S + 1, requires_grad=True)
loss_manual = (-sup * F.log_softmax(logits, -1)).sum(1)
loss_ce = F.cross_entropy(logits, sup, reduction="none")
print(loss_manual.detach(), torch.allclose(loss_manual, loss_ce))
print(
    F.cross_entropy(logits, sup, label_smoothing=0.1).item() > 0,
    F.cross_entropy(logits, sup.argmax(1), label_smoothing=0.1),
)
for bad in [
    lambda: F.cross_entropy(logits, sup[:, :5]),
    lambda: F.cross_entropy(logits, sup.double()),
    lambda: F.cross_entropy(logits, sup, ignore_index=3),
    lambda: F.cross_entropy(logits, sup, weight=torch.ones(11)),
    lambda: F.cross_entropy(logits, sup.argmax(1).int()),
]:
    try:
        r = bad()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)
w = torch.rand(7)
(loss_ce * w).mean().backward()
print(logits.grad[0])
# priorities from value errors, |.|^alpha, importance weights
pri = (support_to_scalar(logits.detach()) - v).abs() ** 1.0 + 1e-6
probs = pri**0.6 / (pri**0.6).sum()
iw = (len(pri) * probs) ** -0.4
print(probs.sum().round(decimals=4), (iw / iw.max()).shape)

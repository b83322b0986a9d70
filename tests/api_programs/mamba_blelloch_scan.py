"""A work-efficient parallel prefix scan (Blelloch) of the linear recurrence h_t = a_t h_{t-1} + b_t written with
strided slices and in-place updates on clones, a Hillis-Steele scan with F.pad shifts, and torch.cummax/cumsum
checks; gradients pass through the in-place slice writes."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def combine(a1, b1, a2, b2):
    return a1 * a2, a2 * b1 + b2


def blelloch(a, b):
    """Inclusive scan over the last dim (a power of two)."""
    a, b = a.clone(), b.clone()
    T = a.shape[-1]
    a0, b0 = a.clone(), b.clone()
    step = 1
    while step < T:
        ia = a[..., step - 1 :: 2 * step].clone()
        ib = b[..., step - 1 :: 2 * step].clone()
        ja = a[..., 2 * step - 1 :: 2 * step].clone()
        jb = b[..., 2 * step - 1 :: 2 * step].clone()
        na, nb = combine(ia, ib, ja, jb)
        a[..., 2 * step - 1 :: 2 * step] = na
        b[..., 2 * step - 1 :: 2 * step] = nb
        step *= 2
    a[..., -1] = 1.0
    b[..., -1] = 0.0
    step = T // 2
    while step >= 1:
        ia, ib = a[..., step - 1 :: 2 * step].clone(), b[..., step - 1 :: 2 * step].clone()
        ja, jb = a[..., 2 * step - 1 :: 2 * step].clone(), b[..., 2 * step - 1 :: 2 * step].clone()
        a[..., step - 1 :: 2 * step] = ja
        b[..., step - 1 :: 2 * step] = jb
        na, nb = combine(ja, jb, ia, ib)
        a[..., 2 * step - 1 :: 2 * step] = na
        b[..., 2 * step - 1 :: 2 * step] = nb
        step //= 2
    # exclusive -> inclusive
    return combine(a, b, a0, b0)[1]


def hillis_steele(a, b):
    T = a.shape[-1]
    shift = 1
    while shift < T:
        a_prev = F.pad(a[..., :-shift], (shift, 0), value=1.0)
        b_prev = F.pad(b[..., :-shift], (shift, 0), value=0.0)
        a, b = a * a_prev, a * b_prev + b
        shift *= 2
    return b


def sequential(a, b):
    h = torch.zeros_like(b[..., 0])
    out = []
    for t in range(a.shape[-1]):
        h = a[..., t] * h + b[..., t]
        out.append(h)
    return torch.stack(out, -1)


a = torch.rand(3, 16, requires_grad=True)
b = torch.randn(3, 16, requires_grad=True)
ref = sequential(a, b)
bl = blelloch(a, b)
hs = hillis_steele(a, b)
print("ref", ref[0, :5].round(decimals=4).tolist())
print("blelloch", torch.allclose(bl, ref, atol=1e-5), bl.grad_fn.__class__.__name__)
print("hillis", torch.allclose(hs, ref, atol=1e-5))
g = torch.randn(3, 16)
ga, gb = torch.autograd.grad((ref * g).sum(), (a, b))
ga2, gb2 = torch.autograd.grad((bl * g).sum(), (a, b))
ga3, gb3 = torch.autograd.grad((hs * g).sum(), (a, b))
print(
    "grads",
    torch.allclose(ga, ga2, atol=1e-4),
    torch.allclose(gb, gb2, atol=1e-4),
    torch.allclose(ga, ga3, atol=1e-4),
    round(ga.abs().sum().item(), 4),
)

# slicing with steps on views and in-place versions
x = torch.arange(16.0)
v = x[1::4]
print("strided view", v.tolist(), v.stride(), v.storage_offset(), v._base is x)
v.mul_(10)
print("after mul_", x[:6].tolist())
y = torch.zeros(8, requires_grad=True).clone()
y[1::2] = torch.arange(4.0)
print("setitem grad_fn", y.grad_fn.__class__.__name__, y.tolist())
print("version", x._version)
w = torch.ones(4, requires_grad=True)
try:
    w[::2] = 0
except Exception as e:
    print(type(e).__name__, e)
leaf = torch.ones(3, requires_grad=True)
z = leaf * 2
zs = z.sigmoid()
z.add_(1)
try:
    zs.sum().backward()
    print("ok: sigmoid saved its result")
except Exception as e:
    print(type(e).__name__, e)
z2 = leaf.exp()
z2.add_(1)
try:
    z2.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:120])
# the classic mistake: combining views that a later in-place write changes
c = torch.rand(3, 16, requires_grad=True).clone()
j = c[..., 15::16]
nj = j * j
c[..., -1] = 1.0
try:
    nj.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e).split(". Hint")[0])
print(
    "cummax",
    torch.cummax(torch.tensor([1, 3, 2, 5, 4]), 0).values.tolist(),
    torch.cummax(torch.tensor([1, 3, 2, 5, 4]), 0).indices.tolist(),
)
try:
    x[::-1]
except Exception as e:
    print(type(e).__name__, e)

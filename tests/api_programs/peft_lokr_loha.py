"""LyCORIS-style adapters: LoHa's Hadamard product of two low-rank pairs (a custom Function) and LoKr's
Kronecker factors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class HadaWeight(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w1a, w1b, w2a, w2b, scale=torch.tensor(1.0)):
        ctx.save_for_backward(w1a, w1b, w2a, w2b, scale)
        return ((w1a @ w1b) * (w2a @ w2b)) * scale

    @staticmethod
    def backward(ctx, grad_out):
        (w1a, w1b, w2a, w2b, scale) = ctx.saved_tensors
        grad_out = grad_out * scale
        temp = grad_out * (w2a @ w2b)
        grad_w1a = temp @ w1b.T
        grad_w1b = w1a.T @ temp
        temp = grad_out * (w1a @ w1b)
        grad_w2a = temp @ w2b.T
        grad_w2b = w2a.T @ temp
        return grad_w1a, grad_w1b, grad_w2a, grad_w2b, None


d_out, d_in, r = 6, 8, 2
w1a = torch.randn(d_out, r, requires_grad=True)
w1b = torch.randn(r, d_in, requires_grad=True)
w2a = torch.randn(d_out, r, requires_grad=True)
w2b = torch.randn(r, d_in, requires_grad=True)
scale = torch.tensor(0.5)
dw = HadaWeight.apply(w1a, w1b, w2a, w2b, scale)
print("loha", tuple(dw.shape), dw.grad_fn.name(), type(dw.grad_fn).__name__)
print("rank bound", torch.linalg.matrix_rank(dw.detach()).item(), "<=", r * r)
g = torch.randn(d_out, d_in)
dw.backward(g)
custom = [t.grad.clone() for t in (w1a, w1b, w2a, w2b)]
for t in (w1a, w1b, w2a, w2b):
    t.grad = None
(((w1a @ w1b) * (w2a @ w2b)) * scale).backward(g)
print("custom == autograd", all(torch.allclose(c, t.grad, atol=1e-5) for c, t in zip(custom, (w1a, w1b, w2a, w2b))))
print(
    "gradcheck",
    torch.autograd.gradcheck(
        HadaWeight.apply, tuple(t.detach().double().requires_grad_() for t in (w1a, w1b, w2a, w2b))
    ),
)


def factorization(dimension, factor=-1):
    if factor > 0 and (dimension % factor) == 0:
        m = factor
        n = dimension // factor
        if m > n:
            n, m = m, n
        return m, n
    if factor < 0:
        factor = dimension
    m, n = 1, dimension
    length = m + n
    while m < n:
        new_m = m + 1
        while dimension % new_m != 0:
            new_m += 1
        new_n = dimension // new_m
        if new_m + new_n > length or new_m > factor:
            break
        m, n = new_m, new_n
    if m > n:
        n, m = m, n
    return m, n


print("factorizations", [factorization(d) for d in (8, 12, 64, 96, 7)], factorization(64, 4))


class LoKrLinear(nn.Module):
    def __init__(self, base, r=2, alpha=2):
        super().__init__()
        self.base = base.requires_grad_(False)
        in_m, in_n = factorization(base.in_features)
        out_l, out_k = factorization(base.out_features)
        self.lokr_w1 = nn.Parameter(torch.zeros(out_l, in_m))
        self.lokr_w2_a = nn.Parameter(torch.randn(out_k, r) * 0.1)
        self.lokr_w2_b = nn.Parameter(torch.randn(r, in_n) * 0.1)
        nn.init.kaiming_uniform_(self.lokr_w1, a=5**0.5)
        self.scale = alpha / r

    def delta(self):
        w2 = self.lokr_w2_a @ self.lokr_w2_b
        return torch.kron(self.lokr_w1, w2) * self.scale

    def forward(self, x):
        return self.base(x) + F.linear(x, self.delta())


lk = LoKrLinear(nn.Linear(12, 8))
print({n: tuple(p.shape) for n, p in lk.named_parameters() if p.requires_grad})
d = lk.delta()
print("kron delta", tuple(d.shape), d.grad_fn.name())
print("params", sum(p.numel() for p in lk.parameters() if p.requires_grad), "vs dense", 12 * 8)
a = torch.arange(4.0).view(2, 2)
b = torch.tensor([[1.0, -1.0, 0.5]])
print(torch.kron(a, b).tolist())
print(torch.kron(torch.tensor([1, 2]), torch.tensor([[1], [10]])).tolist(), torch.kron(a, torch.ones(2, 1, 1)).shape)
x = torch.randn(4, 12)
y = torch.randn(4, 8)
opt = torch.optim.Adam([p for p in lk.parameters() if p.requires_grad], lr=0.05)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(lk(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(lk.lokr_w1.grad.norm().item(), 4))
# kron mixed-product property
A1, B1 = torch.randn(2, 3), torch.randn(2, 2)
A2, B2 = torch.randn(3, 2), torch.randn(2, 4)
print("mixed product", torch.allclose(torch.kron(A1, B1) @ torch.kron(A2, B2), torch.kron(A1 @ A2, B1 @ B2), atol=1e-5))
try:
    HadaWeight.apply(w1a, w1b, w2a, torch.randn(3, d_in), scale)
except RuntimeError as e:
    print(type(e).__name__, e)


class BadBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g


try:
    BadBackward.apply(torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)

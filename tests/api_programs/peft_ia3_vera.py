"""IA3 scaling vectors (on keys/values and feed-forward inputs) and VeRA's shared frozen random projections."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class IA3Linear(nn.Module):
    def __init__(self, base, is_feedforward):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.is_feedforward = is_feedforward
        shape = (1, base.in_features) if is_feedforward else (base.out_features, 1)
        self.ia3_l = nn.Parameter(torch.ones(shape))

    def forward(self, x):
        if self.is_feedforward:
            return self.base(x * self.ia3_l.flatten())
        return self.base(x) * self.ia3_l.flatten()

    @torch.no_grad()
    def merge(self):
        w = self.base.weight
        if self.is_feedforward:
            w.mul_(self.ia3_l)
        else:
            w.mul_(self.ia3_l)
            if self.base.bias is not None:
                self.base.bias.mul_(self.ia3_l.view(-1))


k = IA3Linear(nn.Linear(6, 4), is_feedforward=False)
ff = IA3Linear(nn.Linear(6, 4), is_feedforward=True)
print(k.ia3_l.shape, ff.ia3_l.shape)
x = torch.randn(3, 6)
with torch.no_grad():
    print("identity at init", torch.equal(k(x), k.base(x)), torch.equal(ff(x), ff.base(x)))
opt = torch.optim.SGD([k.ia3_l, ff.ia3_l], lr=0.5)
y = torch.randn(3, 4)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(k(x) + ff(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), k.ia3_l.grad.view(-1).round(decimals=4).tolist())
with torch.no_grad():
    before_k, before_ff = k(x), ff(x)
    k.merge()
    ff.merge()
    print(
        "merged k",
        torch.allclose(k.base(x), before_k, atol=1e-6),
        "merged ff",
        torch.allclose(ff.base(x), before_ff, atol=1e-6),
    )
print("ff scale broadcast", (ff.base.weight.shape, ff.ia3_l.shape))
try:
    with torch.no_grad():
        k.base.weight.mul_(torch.ones(6, 1))
except RuntimeError as e:
    print(type(e).__name__, e)


class VeRALinear(nn.Module):
    def __init__(self, base, vera_A, vera_B, r, d_initial=0.1):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.vera_A = vera_A
        self.vera_B = vera_B
        self.r = r
        self.vera_lambda_b = nn.Parameter(torch.zeros(base.out_features))
        self.vera_lambda_d = nn.Parameter(torch.full((r,), d_initial))

    def forward(self, x):
        A = self.vera_A[:, : self.base.in_features]
        B = self.vera_B[: self.base.out_features, :]
        return self.base(x) + self.vera_lambda_b * F.linear(self.vera_lambda_d * F.linear(x, A), B)


class Model(nn.Module):
    def __init__(self, r=4):
        super().__init__()
        g = torch.Generator().manual_seed(42)
        self.register_buffer("vera_A", torch.empty(r, 8), persistent=False)
        self.register_buffer("vera_B", torch.empty(8, r), persistent=False)
        nn.init.kaiming_uniform_(self.vera_A, generator=g)
        nn.init.kaiming_uniform_(self.vera_B, generator=g)
        self.l1 = VeRALinear(nn.Linear(8, 8), self.vera_A, self.vera_B, r)
        self.l2 = VeRALinear(nn.Linear(6, 5), self.vera_A, self.vera_B, r)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x))[:, :6])


m = Model()
print([n for n, _ in m.named_buffers()])
print("persistent keys", [k for k in m.state_dict() if "vera" in k])
print("shared storage", m.l1.vera_A.data_ptr() == m.vera_A.data_ptr(), m.vera_A.requires_grad)
g = torch.Generator().manual_seed(42)
ref = torch.empty(4, 8)
nn.init.kaiming_uniform_(ref, generator=g)
print("regenerated from seed", torch.equal(ref, m.vera_A))
trainable = {n: p.numel() for n, p in m.named_parameters() if p.requires_grad}
print(trainable, sum(trainable.values()))
x = torch.randn(4, 8)
y = torch.randn(4, 5)
opt = torch.optim.Adam([p for p in m.parameters() if p.requires_grad], lr=0.05)
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(m(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(m.l1.vera_lambda_d.grad.abs().sum().item(), 4))
print("buffers not in grads", m.vera_A.grad)
m2 = Model()
print("load ok", m2.load_state_dict(m.state_dict()))
m.to(torch.float64)
print(m.vera_A.dtype, m.l1.vera_A.dtype, "l1 still aliases", m.l1.vera_A is m.vera_A)
try:
    m.register_buffer("vera_A", torch.ones(1), persistent=False)
except KeyError as e:
    print(type(e).__name__, e)
try:
    m.register_buffer("bad", [1, 2])
except TypeError as e:
    print(type(e).__name__, e)
try:
    m.register_buffer("a.b", torch.ones(1))
except KeyError as e:
    print(type(e).__name__, e)
m.register_buffer("gone", None)
print("None buffer", m.gone, "gone" in dict(m.named_buffers()), "gone" in m.state_dict())
print(m.l1.extra_repr() == "", repr(m.l2).splitlines()[0])

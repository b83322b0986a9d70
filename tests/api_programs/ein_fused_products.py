"""Layers written with the fused BLAS-style products, as hand-optimized model code does: a linear layer by addmm,
batched scores by baddbmm with a scaled bias, a low-rank adapter accumulated with addbmm, a rank-one update by addr,
and beta=0 "ignore the buffer" calls whose inputs still get (zero) gradients."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

# nn.Linear's forward is addmm(bias, x, W^T)
lin = torch.nn.Linear(4, 3)
x = torch.randn(5, 4, requires_grad=True)
y = torch.addmm(lin.bias, x, lin.weight.t())
print("addmm == nn.Linear:", torch.allclose(y, lin(x), atol=1e-6), y.grad_fn.name())
y.sum().backward()
print("bias grad", lin.bias.grad, "x grad row", x.grad[0])

# attention scores with a relative bias added in the same call: baddbmm(bias, q, k^T, beta=1, alpha=scale)
B, L, D = 2, 4, 8
q = torch.randn(B, L, D, requires_grad=True)
k = torch.randn(B, L, D, requires_grad=True)
rel_bias = torch.randn(1, L, L, requires_grad=True)
scale = D ** -0.5
s1 = torch.baddbmm(rel_bias.expand(B, L, L), q, k.transpose(1, 2), alpha=scale)
s2 = rel_bias + scale * (q @ k.transpose(1, 2))
print("baddbmm scores match:", torch.allclose(s1, s2, atol=1e-6), s1.grad_fn.name())
s1.softmax(-1).pow(2).sum().backward()
print("rel bias grad", rel_bias.grad[0])
print("q grad norm", round(q.grad.norm().item(), 4))

# beta=0 with an uninitialized/NaN buffer: the buffer is ignored, but as an input it still gets a zero gradient
buf = torch.full((B, L, L), float("nan"), requires_grad=True)
s3 = torch.baddbmm(buf, q, k.transpose(1, 2), beta=0, alpha=scale)
print("nan ignored:", not s3.isnan().any().item(), s3.grad_fn.name())
(s3 * torch.arange(L * L, dtype=torch.float32).reshape(L, L)).sum().backward()
print("buffer grad", buf.grad is not None, tuple(buf.grad.shape), buf.grad.abs().sum().item())
out0 = torch.zeros(3, 3, requires_grad=True)
r = torch.addmm(out0, torch.randn(3, 2), torch.randn(2, 3), beta=0.0)
r.sum().backward()
print("addmm beta=0 input grad", out0.grad)
v0 = torch.zeros(3, requires_grad=True)
torch.addmv(v0, torch.randn(3, 2), torch.randn(2), beta=0).sum().backward()
print("addmv beta=0 input grad", v0.grad)
r0 = torch.zeros(2, 2, requires_grad=True)
torch.addr(r0, torch.randn(2), torch.randn(2), beta=0, alpha=3).sum().backward()
print("addr beta=0 input grad", r0.grad)

# LoRA-style low-rank update summed over adapters with addbmm: W + sum_i B_i A_i
W = torch.randn(6, 5)
A = torch.randn(3, 2, 5) * 0.1
Bm = torch.zeros(3, 6, 2, requires_grad=True)
W_eff = torch.addbmm(W, Bm, A, beta=1.0, alpha=0.5)
print("zero-init adapters leave W:", torch.equal(W_eff, W), W_eff.grad_fn.name())
xin = torch.randn(4, 5)
(xin @ W_eff.t()).pow(2).mean().backward()
print("adapter B grads", tuple(Bm.grad.shape), [round(g.norm().item(), 4) for g in Bm.grad])
with torch.no_grad():
    Bm.add_(torch.randn_like(Bm) * 0.1)
delta = torch.addbmm(torch.zeros(6, 5), Bm.detach(), A, alpha=0.5)
print("update rank", torch.linalg.matrix_rank(delta).item(), "<= 6")
print("matches einsum:", torch.allclose(delta, 0.5 * torch.einsum("nij,njk->ik", Bm.detach(), A), atol=1e-6))

# rank-one updates: Sherman-Morrison through addr
M = torch.randn(4, 4) + 4 * torch.eye(4)
u = torch.randn(4)
w = torch.randn(4)
Minv = torch.linalg.inv(M)
Mu = torch.addr(M, u, w)
sm = Minv - torch.outer(Minv @ u, w @ Minv) / (1 + w @ Minv @ u)
print("Sherman-Morrison:", torch.allclose(torch.linalg.inv(Mu), sm, atol=1e-5))
# in-place forms with beta and alpha on a running buffer (an EMA of outer products, as in second-moment trackers)
ema = torch.zeros(3, 3)
for t in range(4):
    g = torch.randn(3)
    ema.addr_(g, g, beta=0.9, alpha=0.1)
print("EMA of outer products\n", ema)
print("symmetric:", torch.allclose(ema, ema.T))
acc = torch.zeros(2, 3)
acc.addmm_(torch.ones(2, 4), torch.ones(4, 3), beta=0.5, alpha=0.25)
acc.addmm_(torch.ones(2, 4), torch.ones(4, 3), beta=0.5, alpha=0.25)
print("addmm_ twice", acc)
bb = torch.ones(2, 2, 2)
bb.baddbmm_(torch.ones(2, 2, 3), torch.ones(2, 3, 2), beta=-1, alpha=2)
print("baddbmm_", bb[0])
mv_buf = torch.ones(2)
mv_buf.addmv_(torch.eye(2), torch.tensor([3.0, 4.0]), beta=2)
print("addmv_", mv_buf)

# out= with the fused forms, and their refusals
res = torch.empty(5, 3)
torch.addmm(lin.bias.detach(), x.detach(), lin.weight.detach().t(), out=res)
print("out= matches:", torch.allclose(res, lin(x).detach(), atol=1e-6))
try:
    torch.addmm(lin.bias, x, lin.weight.t(), out=torch.empty(5, 3))
except RuntimeError as e:
    print("out= with grad:", str(e).split(";")[0])
try:
    torch.baddbmm(torch.zeros(2, 4, 4, dtype=torch.float64), q, k.transpose(1, 2))
except RuntimeError as e:
    print("baddbmm dtypes:", e)
try:
    torch.addmm(torch.zeros(5, 3, dtype=torch.float64), x, lin.weight.t())
except RuntimeError as e:
    print("addmm dtypes:", e)

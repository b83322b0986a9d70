"""The BLAS-style fused products with beta and alpha (bmm, baddbmm, addbmm, addmv, addr, addmm), including beta=0
ignoring NaN in the input, plus outer/inner/vdot, multi_dot, chain_matmul and matrix_power."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

M = torch.randn(2, 3)
m1 = torch.randn(2, 4)
m2 = torch.randn(4, 3)
print("addmm", torch.addmm(M, m1, m2))
print("addmm beta=0.5 alpha=2", torch.addmm(M, m1, m2, beta=0.5, alpha=2))
print("matches formula:", torch.allclose(torch.addmm(M, m1, m2, beta=0.5, alpha=2), 0.5 * M + 2 * m1 @ m2, atol=1e-6))
print("addmm broadcast bias", torch.addmm(torch.tensor([1.0, 0.0, -1.0]), m1, m2))
nanM = torch.full((2, 3), float("nan"))
print("addmm beta=0 ignores nan", torch.addmm(nanM, m1, m2, beta=0))
print("addmm beta=1 keeps nan", torch.addmm(nanM, m1, m2).isnan().all().item())
print("addmm alpha=0", torch.addmm(M, m1, m2, alpha=0))
print("method form", M.addmm(m1, m2, beta=2).sub(2 * M).sub(m1 @ m2).abs().max().item() < 1e-5)
Mi = M.clone()
Mi.addmm_(m1, m2, beta=0, alpha=-1)
print("addmm_ in place", torch.allclose(Mi, -(m1 @ m2)))
out = torch.empty(2, 3)
torch.addmm(M, m1, m2, out=out)
print("addmm out=", torch.allclose(out, M + m1 @ m2, atol=1e-6))
imat = torch.arange(4).reshape(2, 2)
print("addmm int", torch.addmm(imat, imat, imat, beta=2, alpha=3))

# addmv
vec = torch.randn(4)
b = torch.randn(2)
print("addmv", torch.addmv(b, m1, vec))
print("addmv beta=0 nan", torch.addmv(torch.full((2,), float("nan")), m1, vec, beta=0))
print("addmv scaled", torch.addmv(b, m1, vec, beta=-1, alpha=0.5))
print("mv", torch.mv(m1, vec), m1.mv(vec).shape)

# addr / outer
x = torch.tensor([1.0, 2.0])
y = torch.tensor([3.0, 4.0, 5.0])
print("outer", torch.outer(x, y))
print("ger alias equals outer:", torch.equal(torch.ger(x, y), torch.outer(x, y)))
print("addr", torch.addr(torch.ones(2, 3), x, y, beta=2, alpha=-1))
print("addr beta=0 nan", torch.addr(torch.full((2, 3), float("nan")), x, y, beta=0))
print("addr int", torch.addr(torch.zeros(2, 2, dtype=torch.long), torch.tensor([1, 2]), torch.tensor([3, 4])))
print("outer int*float", torch.outer(torch.tensor([1, 2]), torch.tensor([0.5])).dtype)

# bmm, baddbmm, addbmm
A = torch.randn(3, 2, 4)
B = torch.randn(3, 4, 5)
C = torch.randn(3, 2, 5)
print("bmm", torch.bmm(A, B).shape, torch.allclose(torch.bmm(A, B), A @ B, atol=1e-6))
print("baddbmm", torch.baddbmm(C, A, B, beta=0.5, alpha=2)[0])
print("baddbmm broadcast input", torch.baddbmm(torch.zeros(2, 5), A, B).shape)
print("baddbmm beta=0 nan", torch.baddbmm(torch.full((3, 2, 5), float("nan")), A, B, beta=0).isnan().any().item())
print("addbmm", torch.addbmm(torch.zeros(2, 5), A, B))
print("addbmm == sum of bmm:", torch.allclose(torch.addbmm(torch.zeros(2, 5), A, B), (A @ B).sum(0), atol=1e-5))
print("addbmm beta alpha", torch.addbmm(torch.ones(2, 5), A, B, beta=3, alpha=0.1))

# gradients through the fused forms
Mg = torch.randn(2, 3, requires_grad=True)
ag = torch.randn(2, 4, requires_grad=True)
bg = torch.randn(4, 3, requires_grad=True)
torch.addmm(Mg, ag, bg, beta=0.5, alpha=2).sum().backward()
print("addmm grads", Mg.grad, ag.grad, sep="\n")
Cg = torch.randn(3, 2, 5, requires_grad=True)
Ag = torch.randn(3, 2, 4, requires_grad=True)
torch.baddbmm(Cg, Ag, B, beta=-1.0, alpha=3).pow(2).mean().backward()
print("baddbmm grad C sum", round(Cg.grad.sum().item(), 4), "grad A[0]", Ag.grad[0])
xg = torch.randn(3, requires_grad=True)
yg = torch.randn(2, requires_grad=True)
torch.addr(torch.zeros(3, 2), xg, yg, alpha=2).sum().backward()
print("addr grads", xg.grad, yg.grad)
print("grad_fn names", torch.addmm(Mg, ag, bg).grad_fn.name(), torch.bmm(Ag, B).grad_fn.name(),
      torch.baddbmm(Cg, Ag, B).grad_fn.name(), torch.addr(torch.zeros(3, 2), xg, yg).grad_fn.name())

# inner / vdot / dot
print("inner 1-d", torch.inner(x, x))
print("inner 2-d", torch.inner(torch.ones(2, 3), torch.arange(6.0).reshape(2, 3)))
print("inner scalar", torch.inner(torch.tensor(2.0), y))
z = torch.tensor([1 + 2j, 3 - 1j])
print("vdot conj", torch.vdot(z, z), "dot", torch.dot(z, z))
print("vdot real", torch.vdot(x, torch.tensor([0.5, 0.25])))
try:
    torch.dot(x, y)
except RuntimeError as e:
    print("dot:", e)
try:
    torch.dot(torch.ones(2, 2), torch.ones(2, 2))
except RuntimeError as e:
    print("dot 2-d:", e)

# multi_dot / chain_matmul
ms = [torch.randn(5, 10), torch.randn(10, 3), torch.randn(3, 7), torch.randn(7, 2)]
md = torch.linalg.multi_dot(ms)
print("multi_dot", md.shape, torch.allclose(md, ms[0] @ ms[1] @ ms[2] @ ms[3], atol=1e-4))
print("multi_dot 1-d ends", torch.linalg.multi_dot([torch.ones(5), ms[0], ms[1], torch.ones(3)]).shape)
print("chain_matmul", torch.allclose(torch.chain_matmul(*ms), md, atol=1e-4))
try:
    torch.linalg.multi_dot([torch.ones(2, 2)])
except RuntimeError as e:
    print("multi_dot one:", e)
try:
    torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(2, 3)])
except RuntimeError as e:
    print("multi_dot shapes:", e)

# matrix_power
P = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
for k in (0, 1, 2, 5, -1, -2):
    print(f"matrix_power {k}", torch.linalg.matrix_power(P, k))
print("method and alias", torch.equal(P.matrix_power(3), torch.matrix_power(P, 3)))
print("inverse check", torch.allclose(torch.linalg.matrix_power(P, -3) @ torch.linalg.matrix_power(P, 3), torch.eye(2),
                                      atol=1e-5))
fib = torch.tensor([[1, 1], [1, 0]])
print("fibonacci", torch.linalg.matrix_power(fib, 10))
print("batched", torch.linalg.matrix_power(torch.stack([P, 2 * P]), 2))
try:
    torch.linalg.matrix_power(fib, -1)
except RuntimeError as e:
    print("int negative:", e)
try:
    torch.linalg.matrix_power(torch.ones(2, 3), 2)
except RuntimeError as e:
    print("non-square:", e)
Pg = P.clone().requires_grad_()
torch.linalg.matrix_power(Pg, 3).sum().backward()
print("matrix_power grad", Pg.grad)

# shape errors
for name, fn in [
    ("mm", lambda: torch.mm(m1, m1)),
    ("bmm", lambda: torch.bmm(A, A)),
    ("bmm 2-d", lambda: torch.bmm(m1, m2)),
    ("addmm", lambda: torch.addmm(torch.zeros(3, 3), m1, m2)),
    ("addmv", lambda: torch.addmv(b, m1, torch.ones(3))),
    ("baddbmm", lambda: torch.baddbmm(C, A, A.transpose(1, 2))),
    ("mv", lambda: torch.mv(m1, torch.ones(5))),
    ("matmul", lambda: torch.ones(2, 3) @ torch.ones(2, 3)),
    ("outer 2-d", lambda: torch.outer(torch.ones(2, 2), x)),
]:
    try:
        fn()
    except RuntimeError as e:
        print(f"{name}: {e}")

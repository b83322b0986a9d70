"""scientific complex code: a toy quantum-circuit simulator (kron, matrix_exp of Hamiltonians, expectation values,
partial trace, entanglement entropy), complex-valued layers trained with a real loss, complex eig/eigh/svd, and
entropic optimal transport (log-domain Sinkhorn with logsumexp)."""

import math

import numpy as np
import torch
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(21)


def r(x, k=6):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x)
    return np.round(x.double().flatten()[:k].numpy(), 4).tolist()


C = torch.complex128
I2 = torch.eye(2, dtype=C)
X = torch.tensor([[0, 1], [1, 0]], dtype=C)
Y = torch.tensor([[0, -1j], [1j, 0]], dtype=C)
Z = torch.tensor([[1, 0], [0, -1]], dtype=C)
H = torch.tensor([[1, 1], [1, -1]], dtype=C) / math.sqrt(2)
print("pauli", X.dtype, Y, torch.allclose(X @ Y - Y @ X, 2j * Z))


def op_on(gate, q, n):
    mats = [gate if i == q else I2 for i in range(n)]
    out = mats[0]
    for m in mats[1:]:
        out = torch.kron(out, m)
    return out


def cnot(c, t, n):
    P0 = torch.tensor([[1, 0], [0, 0]], dtype=C)
    P1 = torch.tensor([[0, 0], [0, 1]], dtype=C)
    return op_on(P0, c, n) + op_on(P1, c, n) @ op_on(X, t, n)


n = 3
psi = torch.zeros(2**n, dtype=C)
psi[0] = 1
psi = op_on(H, 0, n) @ psi
psi = cnot(0, 1, n) @ psi
psi = cnot(1, 2, n) @ psi
print("GHZ", r(psi, 16))
print("norm", round(torch.linalg.vector_norm(psi).item(), 6), "probs", r(psi.abs() ** 2, 8))
ZZ = torch.kron(torch.kron(Z, Z), I2)
print(
    "<ZZI>",
    round(torch.vdot(psi, ZZ @ psi).real.item(), 6),
    "<XXX>",
    round(torch.vdot(psi, op_on(X, 0, n) @ op_on(X, 1, n) @ op_on(X, 2, n) @ psi).real.item(), 6),
)

Hising = sum(op_on(Z, i, n) @ op_on(Z, i + 1, n) for i in range(n - 1)) + 0.7 * sum(op_on(X, i, n) for i in range(n))
print("hermitian", torch.allclose(Hising, Hising.mH), Hising.shape)
evals, evecs = torch.linalg.eigh(Hising)
print("ising spectrum", r(evals, 8))
print("ground state overlap", round(abs(torch.vdot(evecs[:, 0], psi).item()), 4))
U = torch.linalg.matrix_exp(-1j * 0.4 * Hising)
print("unitary", torch.allclose(U @ U.mH, torch.eye(8, dtype=C)), r(torch.diagonal(U), 4))
phi = U @ psi
energy = torch.vdot(phi, Hising @ phi)
print(
    "energy conserved",
    round(energy.real.item(), 6),
    round(torch.vdot(psi, Hising @ psi).real.item(), 6),
    round(energy.imag.item(), 6),
)
rho = torch.outer(phi, phi.conj())
rho_a = rho.reshape(2, 4, 2, 4).diagonal(dim1=1, dim2=3).sum(-1)
print("reduced rho", r(rho_a, 8), round(torch.trace(rho_a).real.item(), 6))
p = torch.linalg.eigvalsh(rho_a).clamp(min=1e-12)
print("entanglement entropy", round(-(p * p.log()).sum().item(), 4))
trotter = torch.linalg.matrix_power(
    torch.linalg.matrix_exp(-1j * 0.04 * 0.7 * sum(op_on(X, i, n) for i in range(n)))
    @ torch.linalg.matrix_exp(-1j * 0.04 * (Hising - 0.7 * sum(op_on(X, i, n) for i in range(n)))),
    10,
)
print("trotter error", round(torch.linalg.matrix_norm(trotter - U, ord=2).item(), 6))

A = torch.from_numpy(rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4)))
w, V = torch.linalg.eig(A)
order = torch.argsort(w.real)
print("eig", w.dtype, V.shape, r(w[order], 8))
print("eig residual", round((A @ V - V * w).abs().max().item(), 8) < 1e-10, r(V.abs().pow(2).sum(0), 4))
print("eigvals", r(torch.linalg.eigvals(A)[order], 4))
real_mat = torch.tensor([[0.0, -2.0], [2.0, 0.0]])
print("eig of real rotation", r(torch.linalg.eigvals(real_mat)), torch.linalg.eig(real_mat).eigenvalues.dtype)
Uc, S, Vh = torch.linalg.svd(A)
print("svd", r(S), Uc.dtype, S.dtype, torch.allclose(Uc @ torch.diag(S).to(C) @ Vh, A))
print("svd full=False", [t.shape for t in torch.linalg.svd(A[:, :3], full_matrices=False)])
print(
    "pinv",
    torch.allclose(torch.linalg.pinv(A) @ A, torch.eye(4, dtype=C)),
    "cond",
    round(torch.linalg.cond(A).item(), 4),
)
print(
    "det",
    r(torch.linalg.det(A)),
    "slogdet",
    r(torch.linalg.slogdet(A).sign),
    round(torch.linalg.slogdet(A).logabsdet.item(), 4),
)
Hm = A + A.mH
print("eigh complex", r(torch.linalg.eigh(Hm).eigenvalues), torch.linalg.eigh(Hm).eigenvectors.dtype)
print(
    "matrix_exp(iH) unitary",
    torch.allclose(torch.linalg.matrix_exp(1j * Hm) @ torch.linalg.matrix_exp(-1j * Hm), torch.eye(4, dtype=C)),
)
print("solve", r(torch.linalg.solve(A, torch.ones(4, dtype=C)), 4), "inv", r(torch.linalg.inv(A)[0], 4))
print(
    "qr",
    torch.allclose(torch.linalg.qr(A).Q.mH @ torch.linalg.qr(A).Q, torch.eye(4, dtype=C)),
    r(torch.linalg.qr(A).R.diagonal(), 4),
)
chol = torch.linalg.cholesky(Hm @ Hm.mH + torch.eye(4, dtype=C))
print("cholesky", r(chol.diagonal(), 8), torch.allclose(chol @ chol.mH, Hm @ Hm.mH + torch.eye(4, dtype=C)))


class ComplexLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        w = (rng.standard_normal((n_out, n_in)) + 1j * rng.standard_normal((n_out, n_in))) / math.sqrt(2 * n_in)
        self.weight = nn.Parameter(torch.from_numpy(w.astype(np.complex64)))
        self.bias = nn.Parameter(torch.zeros(n_out, dtype=torch.complex64))

    def forward(self, z):
        return z @ self.weight.T + self.bias


def modrelu(z, b):
    mag = z.abs()
    return torch.polar(torch.relu(mag + b), z.angle())


class ComplexNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = ComplexLinear(8, 16)
        self.b = nn.Parameter(torch.full((16,), -0.1))
        self.l2 = ComplexLinear(16, 2)

    def forward(self, z):
        return self.l2(modrelu(self.l1(z), self.b)).abs()


t = torch.arange(8, dtype=torch.float32)
freqs = torch.tensor([1.0, 2.0, 1.0, 2.0, 1.0, 2.0])
phases = torch.from_numpy(rng.uniform(0, 2 * math.pi, 6).astype(np.float32))
sig = torch.exp(1j * (2 * math.pi * freqs[:, None] * t / 8 + phases[:, None])).to(torch.complex64)
labels = (freqs == 2.0).long()
net = ComplexNet()
print("complex params", [(n, p.dtype) for n, p in net.named_parameters()])
opt = torch.optim.Adam(net.parameters(), lr=0.02)
for step in range(8):
    out = net(sig)
    loss = nn.functional.cross_entropy(out * 3, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print(f"complex step {step} loss {loss.item():.4f}")
print("grad dtype", net.l1.weight.grad.dtype, r(net.l1.weight.grad, 4))
z = torch.tensor([1.0 + 2.0j, -0.5 + 0.3j], requires_grad=True)
(z.abs() ** 2).sum().backward()
print("wirtinger grad", z.grad)
z2 = torch.tensor(0.3 + 0.4j, requires_grad=True)
(torch.exp(z2) * torch.sin(z2)).real.backward()
print("holomorphic grad", z2.grad)


def sinkhorn(a, b, cost, eps, iters):
    log_a, log_b = a.log(), b.log()
    f, g = torch.zeros_like(a), torch.zeros_like(b)
    for _ in range(iters):
        f = -eps * torch.logsumexp((g[None, :] - cost) / eps + log_b[None, :], dim=1)
        g = -eps * torch.logsumexp((f[:, None] - cost) / eps + log_a[:, None], dim=0)
    plan = torch.exp((f[:, None] + g[None, :] - cost) / eps + log_a[:, None] + log_b[None, :])
    return plan, (plan * cost).sum()


xs = torch.from_numpy(rng.standard_normal((6, 2)))
ys = torch.from_numpy(rng.standard_normal((5, 2)) + 1.0).requires_grad_(True)
a = torch.full((6,), 1 / 6, dtype=torch.float64)
b = torch.softmax(torch.linspace(0, 1, 5, dtype=torch.float64), 0)
cost = torch.cdist(xs, ys) ** 2
plan, w2 = sinkhorn(a, b, cost, 0.1, 200)
print("sinkhorn marginals", r(plan.sum(1)), r(plan.sum(0), 5))
print("sinkhorn cost", round(w2.item(), 4), "plan max", r(plan.argmax(1)))
w2.backward()
print("transport grad", r(ys.grad, 6))
plan_hi, w2_hi = sinkhorn(a, b, cost.detach(), 1.0, 50)
print("entropy effect", round(w2_hi.item(), 4), round(-(plan_hi * plan_hi.log()).sum().item(), 4))
print(
    "logsumexp -inf",
    torch.logsumexp(torch.tensor([float("-inf"), float("-inf")]), 0),
    torch.logsumexp(torch.tensor([[0.0, float("-inf")]]), 1),
)
try:
    torch.linalg.eigh(torch.ones(2, 3, dtype=C))
except RuntimeError as e:
    print("RuntimeError", str(e))
print("kron promotes", torch.kron(psi, torch.ones(2, dtype=torch.float32)).dtype)
try:
    torch.zeros(2).add_(psi[:2])
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=C))
except RuntimeError as e:
    print(type(e).__name__, str(e)[:90])

"""HiPPO-LegS initialisation and S4's bilinear discretisation: the matrix built with outer/sqrt/tril, its
eigenvalues, bilinear transforms with linalg.solve and inv, ZOH with torch.linalg.matrix_exp (and its gradient),
and the convolution kernel by repeated powers with matrix_power."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def hippo_legs(N):
    q = torch.arange(N, dtype=torch.float64)
    col, row = torch.meshgrid(q, q, indexing="ij")
    r = 2 * q + 1
    M = -(torch.where(row >= col, r, torch.zeros_like(r)) - torch.diag(q))
    T = torch.sqrt(torch.diag(2 * q + 1))
    A = T @ M @ torch.linalg.inv(T)
    B = torch.diag(T)[:, None]
    return A, B


A, B = hippo_legs(4)
print("A", A.dtype, A.round(decimals=4).tolist())
print("B", B.flatten().round(decimals=4).tolist())
Alt = -torch.tril(
    torch.sqrt(torch.outer(2 * torch.arange(4.0) + 1, 2 * torch.arange(4.0) + 1)), diagonal=-1
) - torch.diag(torch.arange(4.0) + 1)
print("tril form", torch.allclose(Alt.double(), A), Alt.dtype)
ev = torch.linalg.eigvals(A)
print("eigvals", ev.dtype, sorted(ev.real.round(decimals=4).tolist()))

# bilinear discretisation
dt = 0.1
I = torch.eye(4, dtype=torch.float64)
BL = torch.linalg.inv(I - dt / 2 * A)
dA = BL @ (I + dt / 2 * A)
dB = BL @ (dt * B)
dA2 = torch.linalg.solve(I - dt / 2 * A, I + dt / 2 * A)
print(
    "bilinear",
    torch.allclose(dA, dA2),
    dA.diagonal().round(decimals=4).tolist(),
    dB.flatten().round(decimals=4).tolist(),
)

# ZOH with matrix_exp, float32 and batched
Ad = torch.linalg.matrix_exp(A * dt)
print("zoh", Ad.diagonal().round(decimals=4).tolist(), torch.matrix_exp(A * dt).allclose(Ad))
batch = torch.stack([A * s for s in (0.01, 0.1, 1.0)]).float()
E = torch.linalg.matrix_exp(batch)
print("batched", tuple(E.shape), E.dtype, E[:, 0, 0].round(decimals=4).tolist())
print("exp(0)=I", torch.equal(torch.linalg.matrix_exp(torch.zeros(3, 3)), torch.eye(3)))
rot = torch.tensor([[0.0, -1.0], [1.0, 0.0]]) * (torch.pi / 2)
print("rotation", torch.linalg.matrix_exp(rot).round(decimals=4).tolist())
Zc = torch.tensor([[0.0, 1j], [1j, 0.0]], dtype=torch.complex64)
print("complex expm", torch.linalg.matrix_exp(Zc).real.round(decimals=4).tolist(), torch.linalg.matrix_exp(Zc).dtype)

# gradient of matrix_exp vs finite differences
W = (torch.randn(3, 3, dtype=torch.float64) * 0.5).requires_grad_()
G = torch.randn(3, 3, dtype=torch.float64)
(torch.linalg.matrix_exp(W) * G).sum().backward()
eps = 1e-6
fd = torch.zeros(3, 3, dtype=torch.float64)
with torch.no_grad():
    for i in range(3):
        for j in range(3):
            E1 = W.clone()
            E1[i, j] += eps
            E2 = W.clone()
            E2[i, j] -= eps
            fd[i, j] = ((torch.linalg.matrix_exp(E1) - torch.linalg.matrix_exp(E2)) * G).sum() / (2 * eps)
print("expm grad", torch.allclose(W.grad, fd, atol=1e-6), round(W.grad.sum().item(), 4))
print(torch.autograd.gradcheck(torch.linalg.matrix_exp, (W.detach().requires_grad_(),)))

# kernel K = (C dA^k dB) for k < L
C = torch.randn(1, 4, dtype=torch.float64)
L = 6
K = torch.cat([C @ torch.linalg.matrix_power(dA, k) @ dB for k in range(L)], dim=1)
print("K", K.flatten().round(decimals=4).tolist())
powers = [I]
for _ in range(L - 1):
    powers.append(powers[-1] @ dA)
K2 = torch.einsum("n,lnm,m->l", C[0], torch.stack(powers), dB[:, 0])
print("K einsum", torch.allclose(K.flatten(), K2))
print("matrix_power(-1)", torch.allclose(torch.linalg.matrix_power(dA, -1), torch.linalg.inv(dA)))
print("cond", round(torch.linalg.cond(dA).item(), 4), "det", round(torch.linalg.det(dA).item(), 4))

try:
    torch.linalg.matrix_exp(torch.randn(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_exp(torch.tensor([[1, 2], [3, 4]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_power(torch.randn(2, 3), 2)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)

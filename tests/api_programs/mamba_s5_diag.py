"""S5-style diagonalised HiPPO: the normal part of HiPPO-LegS diagonalised with torch.linalg.eigh (a Hermitian
matrix times -1j), complex eigenvectors V and V^H, conjugate-symmetric B~ = V^H B, ZOH and bilinear discretisation
of a complex diagonal, and the resulting scan against the dense real system."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
N = 6


def make_hippo(N):
    P = torch.sqrt(1 + 2 * torch.arange(N, dtype=torch.float64))
    A = P[:, None] * P[None, :]
    A = torch.tril(A) - torch.diag(torch.arange(N, dtype=torch.float64))
    return -A


def make_nplr(N):
    A = make_hippo(N)
    P = torch.sqrt(torch.arange(N, dtype=torch.float64) + 0.5)
    B = torch.sqrt(2 * torch.arange(N, dtype=torch.float64) + 1.0)
    return A, P, B


A, P, B = make_nplr(N)
S = A + P[:, None] * P[None, :]
S_diag = torch.diagonal(S)
Lambda_real = torch.mean(S_diag) * torch.ones_like(S_diag)
print("S skew", torch.allclose(S - torch.diag(S_diag), -(S - torch.diag(S_diag)).T))
Lambda_imag, V = torch.linalg.eigh(S * -1j)
print("eigh", Lambda_imag.dtype, V.dtype, Lambda_imag.round(decimals=4).tolist())
Lambda = Lambda_real + 1j * Lambda_imag
print("Lambda real", Lambda.real.round(decimals=4).tolist())
Vinv = V.conj().T
print("unitary", torch.allclose(Vinv @ V, torch.eye(N, dtype=V.dtype), atol=1e-10))
recon = V @ torch.diag(Lambda) @ Vinv
print("recon", torch.allclose(recon.real, S, atol=1e-8), recon.imag.abs().max().item() < 1e-8)

B_tilde = Vinv @ B.to(V.dtype)
C = torch.randn(N, dtype=torch.float64)
C_tilde = C.to(V.dtype) @ V
print("B~", B_tilde.abs().round(decimals=4).tolist())

dt = 0.05
Lambda_bar = torch.exp(Lambda * dt)
B_bar = ((Lambda_bar - 1) / Lambda) * B_tilde
I = torch.ones_like(Lambda)
BL = 1 / (I - dt / 2 * Lambda)
Lambda_bl = BL * (I + dt / 2 * Lambda)
B_bl = BL * dt * B_tilde
print("zoh |Lb|", Lambda_bar.abs().max().item() < 1, "bilinear", Lambda_bl.abs().max().item() < 1)
print("zoh vs bilinear", round((Lambda_bar - Lambda_bl).abs().max().item(), 6))

u = torch.randn(20, dtype=torch.float64)
x = torch.zeros(N, dtype=torch.complex128)
ys = []
for t in range(20):
    x = Lambda_bar * x + B_bar * u[t]
    ys.append((C_tilde * x).sum().real)
ys = torch.stack(ys)
Sd = torch.linalg.matrix_exp(S * dt)
Bd = torch.linalg.solve(S, (Sd - torch.eye(N, dtype=torch.float64)) @ B)
xr = torch.zeros(N, dtype=torch.float64)
yr = []
for t in range(20):
    xr = Sd @ xr + Bd * u[t]
    yr.append(C @ xr)
yr = torch.stack(yr)
print("diag==dense", torch.allclose(ys, yr, atol=1e-8), ys[:4].round(decimals=4).tolist())

print("eigvalsh", torch.linalg.eigvalsh(S * -1j).round(decimals=4).tolist() == Lambda_imag.round(decimals=4).tolist())
H = torch.tensor([[2.0, 1j], [-1j, 2.0]], dtype=torch.complex64)
w, Q = torch.linalg.eigh(H)
print("eigh c64", w.dtype, w.tolist(), Q.dtype)
w2, _ = torch.linalg.eigh(torch.tensor([[1.0, 5.0], [0.0, 1.0]]), UPLO="U")
print("UPLO=U", w2.tolist())
ev, evec = torch.linalg.eig(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))
print("eig", ev.dtype, sorted(ev.imag.tolist()))
print(torch.diag(torch.tensor([1 + 1j, 2 - 2j])))
try:
    torch.linalg.eigh(torch.randn(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.eigh(torch.eye(2), UPLO="X")
except Exception as e:
    print(type(e).__name__, e)

"""Complex arithmetic in physics code: phasors with torch.polar/abs/angle, AC circuit impedances solved by complex
linalg.solve, a tight-binding Hamiltonian's eigh and its time evolution by matrix_exp (unitarity), the transfer-matrix
method for a quantum barrier, the discrete Fourier matrix as a unitary complex matmul, view_as_real/view_as_complex,
complex autograd (Wirtinger gradients of |z|^2), and the dtype rules of mixing real and complex."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
c128 = torch.complex128
f64 = torch.float64


def r(x, k=6, nd=4):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x.resolve_conj())
    return np.round(x.double().flatten()[: 2 * k].numpy(), nd).tolist()


mag = torch.tensor([1.0, 2.0, 0.5], dtype=f64)
ph = torch.tensor([0.0, math.pi / 3, -math.pi / 2], dtype=f64)
z = torch.polar(mag, ph)
print("polar", z.dtype, r(z))
print("abs", r(z.abs()), "angle", r(z.angle()), "real/imag", r(z.real), r(z.imag))
print("complex()", torch.complex(mag, ph).dtype, "conj", r(z.conj()), "is_conj", z.conj().is_conj())
print("sgn", r(torch.sgn(z)), "exp(i pi)", r(torch.exp(1j * torch.tensor(math.pi, dtype=f64))))
print("angle of reals", torch.tensor([-2.0, 0.0, 3.0]).angle().tolist(), "abs dtype", z.abs().dtype)

# promotion rules
print(
    "f32 * 1j",
    (torch.ones(2) * 1j).dtype,
    "f64 + c64",
    (torch.ones(2, dtype=f64) + torch.ones(2, dtype=torch.complex64)).dtype,
)
print("int + 1j", (torch.arange(3) + 1j).dtype, "result_type", torch.result_type(torch.ones(1), 2j))
print("is_complex", z.is_complex(), torch.is_complex(mag), "is_floating_point", z.is_floating_point())

# AC circuit: series R-L, parallel C, nodal analysis
w = 2 * math.pi * 50
R1, Lh, C = 10.0, 0.05, 100e-6
ZR = torch.tensor(R1, dtype=c128)
ZL = torch.tensor(1j * w * Lh, dtype=c128)
ZC = 1 / torch.tensor(1j * w * C, dtype=c128)
Y = torch.tensor(
    [[1 / R1 + 1 / (1j * w * Lh), -1 / (1j * w * Lh)], [-1 / (1j * w * Lh), 1 / (1j * w * Lh) + 1j * w * C]], dtype=c128
)
I = torch.tensor([1.0 + 0j, 0.0], dtype=c128)
V = torch.linalg.solve(Y, I)
print("node voltages |V|", r(V.abs(), 2), "phase deg", r(torch.rad2deg(V.angle()), 2, 2))
print("Y symmetric", torch.allclose(Y, Y.T), "det", r(torch.linalg.det(Y), 1))
P = 0.5 * (V * I.conj()).real.sum()
print("power", round(P.item(), 4), "impedances", r(torch.stack([ZR, ZL, ZC]), 3, 3))

# tight-binding chain: H hermitian, eigh, time evolution
n = 6
t_hop = 1.0
H = torch.zeros(n, n, dtype=c128)
phase = torch.exp(1j * torch.tensor(0.3, dtype=f64))
idx = torch.arange(n - 1)
H[idx, idx + 1] = -t_hop * phase
H[idx + 1, idx] = -t_hop * phase.conj()
print("hermitian", torch.allclose(H, H.mH), "H.adjoint()", torch.equal(H.adjoint(), H.conj().T))
E, U = torch.linalg.eigh(H)
print("energies", r(E, 6, 4), "exact", [round(-2 * math.cos(math.pi * k / (n + 1)), 4) for k in range(1, 4)])
print(
    "U unitary",
    torch.allclose(U.mH @ U, torch.eye(n, dtype=c128)),
    "eigvalsh",
    torch.allclose(torch.linalg.eigvalsh(H), E),
)
psi0 = torch.zeros(n, dtype=c128)
psi0[0] = 1
Ut = torch.linalg.matrix_exp(-1j * H * 1.5)
psi = Ut @ psi0
print("norm kept", round(torch.linalg.vector_norm(psi).item(), 10), "probabilities", r(psi.abs() ** 2, 6, 4))
psi_eig = U @ (torch.exp(-1j * E * 1.5) * (U.mH @ psi0))
print("matrix_exp == spectral", torch.allclose(psi, psi_eig))
print(
    "expectation <H>",
    round(torch.vdot(psi, H @ psi).real.item(), 6),
    "conserved",
    round(torch.vdot(psi0, H @ psi0).real.item(), 6),
)


# transfer matrix for a rectangular barrier (hbar = 2m = 1)
def transmission(Ek, V0=1.0, a=1.0):
    k = torch.sqrt(torch.tensor(Ek, dtype=c128))
    q = torch.sqrt(torch.tensor(Ek - V0, dtype=c128))

    def M(kk, x):
        e = torch.exp(1j * kk * x)
        return torch.stack([torch.stack([e, 1 / e]), torch.stack([1j * kk * e, -1j * kk / e])])

    T = torch.linalg.solve(M(k, a), M(q, a)) @ torch.linalg.solve(
        M(q, torch.tensor(0.0, dtype=c128)), M(k, torch.tensor(0.0, dtype=c128))
    )
    return (torch.linalg.det(T).abs() / T[0, 0].abs() ** 2).item()


print("transmission", [round(transmission(e), 4) for e in (0.5, 1.5, 3.0)])

# DFT matrix
N = 8
k = torch.arange(N, dtype=f64)
F = torch.exp(-2j * math.pi * torch.outer(k, k) / N) / math.sqrt(N)
sig = torch.from_numpy(np.random.default_rng(1).standard_normal(N)).to(c128)
print(
    "DFT matrix unitary",
    torch.allclose(F @ F.mH, torch.eye(N, dtype=c128)),
    "== fft ortho",
    torch.allclose(F @ sig, torch.fft.fft(sig, norm="ortho")),
)
print(
    "F^4 = I",
    torch.allclose(torch.linalg.matrix_power(F, 4), torch.eye(N, dtype=c128)),
    "eigvals on circle",
    bool((torch.linalg.eigvals(F).abs() - 1).abs().max() < 1e-10),
)
print(
    "einsum complex",
    torch.allclose(torch.einsum("ij,j->i", F, sig), F @ sig),
    "bmm",
    torch.bmm(F[None], sig[None, :, None]).shape,
)

# views and storage
zr = torch.view_as_real(z)
print("view_as_real", zr.shape, zr.dtype, "shares storage", zr.data_ptr() == z.data_ptr())
back = torch.view_as_complex(zr)
zr[0, 1] = 5.0
print("write through view", r(z[0], 1), torch.equal(back, z))
print("strided view_as_complex", torch.view_as_complex(torch.arange(8, dtype=f64).view(4, 2)).tolist())

# complex autograd: d|z|^2/dz* convention
zz = torch.tensor([1 + 2j, -0.5 + 0.5j], dtype=c128, requires_grad=True)
loss = (zz.abs() ** 2).sum()
loss.backward()
print("grad |z|^2", r(zz.grad, 2), "== 2z", torch.allclose(zz.grad, 2 * zz.detach()))
zz.grad = None
(zz * zz.conj()).real.sum().backward()
print("grad z z*", r(zz.grad, 2))
zz.grad = None
zz.angle().sum().backward()
print("grad angle", r(zz.grad, 2, 4))
A = torch.tensor([[2.0, 1j], [-1j, 3.0]], dtype=c128, requires_grad=True)
torch.linalg.eigvalsh(A).sum().backward()
print("grad of trace via eigvalsh", r(A.grad, 4, 4))

try:
    torch.view_as_complex(torch.ones(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.polar(torch.ones(2), torch.ones(2, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
try:
    z < z
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.tensor([1.0]).add_(1j)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.complex(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)

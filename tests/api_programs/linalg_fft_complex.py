"""torch.linalg, torch.fft, complex tensors."""

import numpy as np
import torch

rng = np.random.default_rng(0)


def T(*s, dt=np.float64):
    return torch.from_numpy(rng.standard_normal(s).astype(dt))


def r(x, n=6):
    x = x.detach()
    if x.is_complex():
        return np.round(torch.view_as_real(x.resolve_conj()).flatten()[:n].numpy().astype(np.float64), 4).tolist()
    return np.round(x.double().flatten()[:n].numpy(), 4).tolist()


A = T(4, 4)
S = A @ A.T + 4 * torch.eye(4, dtype=torch.float64)
b = T(4, 2)
print("solve", r(torch.linalg.solve(A, b)), r(torch.linalg.inv(A)), round(torch.linalg.det(A).item(), 4))
sign, logdet = torch.linalg.slogdet(A)
print("slogdet", sign.item(), round(logdet.item(), 4), round(torch.logdet(S).item(), 4))
U, Sv, Vh = torch.linalg.svd(A, full_matrices=False)
print("svd", r(Sv), torch.allclose(U @ torch.diag(Sv) @ Vh, A))
print("svdvals", r(torch.linalg.svdvals(A)))
Q, R = torch.linalg.qr(A)
print("qr", torch.allclose(Q @ R, A), Q.shape, R.shape)
w, V = torch.linalg.eigh(S)
print("eigh", r(w), torch.allclose(V @ torch.diag(w) @ V.T, S))
print("eigvalsh", r(torch.linalg.eigvalsh(S)))
ev = torch.linalg.eigvals(A)
print("eigvals", ev.dtype, sorted(np.round(np.abs(ev.numpy()), 4).tolist()))
print(
    "norms",
    round(torch.linalg.norm(A).item(), 4),
    round(torch.linalg.norm(A, ord="nuc").item(), 4),
    round(torch.linalg.matrix_norm(A, ord=1).item(), 4),
    r(torch.linalg.vector_norm(A, ord=3, dim=1)),
    round(torch.norm(A, p="fro").item(), 4),
)
print("lstsq", r(torch.linalg.lstsq(T(6, 3), T(6, 1)).solution))
print("pinv", r(torch.linalg.pinv(T(3, 5))))
print(
    "matrix_rank",
    torch.linalg.matrix_rank(torch.ones(3, 3)).item(),
    torch.linalg.matrix_power(A, 3).shape,
    r(torch.linalg.matrix_exp(A * 0.1)),
)
print("cross", r(torch.linalg.cross(T(3), T(3))), r(torch.cross(T(2, 3), T(2, 3), dim=1)))
print("lu", [t.shape for t in torch.linalg.lu_factor(A)], r(torch.linalg.lu_solve(*torch.linalg.lu_factor(A), b)))
P_, L, U_ = torch.linalg.lu(A)
print("lu_full", torch.allclose(P_ @ L @ U_, A))
print(
    "triangular", r(torch.linalg.solve_triangular(torch.triu(A) + 3 * torch.eye(4, dtype=torch.float64), b, upper=True))
)
print(
    "cond",
    round(torch.linalg.cond(S).item(), 3),
    r(torch.linalg.multi_dot([A, A, b])),
    r(torch.linalg.vecdot(T(3), T(3))),
)
print("householder", r(torch.linalg.householder_product(*torch.geqrf(A))))
print("inv_ex", [t.shape for t in torch.linalg.inv_ex(A)], torch.linalg.cholesky_ex(S).info.item())
print(
    "diag",
    r(torch.linalg.diagonal(A)),
    r(torch.trace(A).reshape(1)),
    r(torch.tril_indices(3, 3)),
    r(torch.kron(torch.eye(2), torch.ones(2, 2))),
)
try:
    torch.linalg.solve(torch.zeros(3, 3), torch.ones(3))
except RuntimeError as e:
    print("singular", isinstance(e, torch.linalg.LinAlgError))
# fft
x = T(16)
X = torch.fft.fft(x)
print("fft", X.dtype, r(X), r(torch.fft.ifft(X).real))
print("rfft", r(torch.fft.rfft(x, norm="ortho")), torch.fft.irfft(torch.fft.rfft(x), n=16).shape)
print("fft2", r(torch.fft.fft2(T(4, 4))), r(torch.fft.fftshift(torch.fft.fftfreq(6, d=0.5))), r(torch.fft.rfftfreq(6)))
print(
    "fftn",
    torch.fft.rfftn(T(2, 4, 6), dim=(-2, -1)).shape,
    r(torch.fft.hfft(T(5, dt=np.complex128) if False else torch.fft.rfft(x)[:5])),
)
xf = T(8, dt=np.float32).requires_grad_()
torch.fft.rfft(xf).abs().pow(2).sum().backward()
print("fft_grad", r(xf.grad))
# complex
z = torch.complex(T(3), T(3))
print("complex", z.dtype, r(z.abs()), r(z.angle()), r(z.conj()), r(z.real), r(z.imag), r(torch.view_as_real(z)))
print("polar", r(torch.polar(torch.ones(2, dtype=torch.float64), torch.tensor([0.0, np.pi / 2], dtype=torch.float64))))
print("cplx_ops", r(z * z), r(z @ z), r(torch.exp(z)), r(z / (1 + 1j)), z.is_complex(), torch.is_complex(z))
print(
    "vac",
    torch.view_as_complex(torch.ones(3, 2)).dtype,
    torch.tensor([1 + 2j]).dtype,
    torch.zeros(2, dtype=torch.cfloat).dtype,
)
print("repr", torch.tensor([1 + 2j, 3.5 - 1j]))
wc = torch.randn(3, dtype=torch.complex64, requires_grad=True)
(wc.abs() ** 2).sum().backward()
print("cgrad", torch.allclose(wc.grad, 2 * wc.detach()))
print(
    "stft",
    torch.stft(T(64, dt=np.float32), n_fft=16, hop_length=4, window=torch.hann_window(16), return_complex=True).shape,
)
print("OK")

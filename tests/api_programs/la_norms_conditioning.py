"""Norms, conditioning and rank as numerical analysts check them: vector_norm/matrix_norm/norm over every ord,
dims and keepdim, cond with each p, det/slogdet/logdet on batches and singular inputs, matrix_rank with
atol/rtol/hermitian, and pinv (hermitian, atol/rtol) against the Moore-Penrose conditions."""

import math

import torch

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4)


x = torch.tensor([3.0, -4.0, 0.0, 1.5, -0.5], dtype=f64)
for o in [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1]:
    print("vector_norm ord", o, round(LA.vector_norm(x, ord=o).item(), 4))
X = torch.randn(3, 4, 5, dtype=f64)
print("dim=-1", r4(LA.vector_norm(X, dim=-1)))
print("dim=(0,2) keepdim", tuple(LA.vector_norm(X, dim=(0, 2), keepdim=True).shape),
      r4(LA.vector_norm(X, dim=(0, 2)).flatten()))
print("whole tensor", round(LA.vector_norm(X).item(), 4), round(X.flatten().norm().item(), 4))
print("dtype=float64 from float32", LA.vector_norm(torch.ones(4), dtype=f64).dtype)
print("float32 arange", LA.vector_norm(torch.arange(4.0)).item())

A = torch.tensor([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]], dtype=f64)
R = torch.randn(4, 3, dtype=f64)
for o in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
    print("matrix_norm", o, round(LA.matrix_norm(A, ord=o).item(), 4), round(LA.matrix_norm(R, ord=o).item(), 4))
B = torch.randn(2, 3, 3, dtype=f64)
print("batched fro", r4(LA.matrix_norm(B)))
print("dim=(0,1) 2-norm", r4(LA.matrix_norm(B, ord=2, dim=(0, 1))))
print("keepdim", tuple(LA.matrix_norm(B, keepdim=True).shape))
print("norm vector default", round(LA.norm(x).item(), 4), "norm matrix default", round(LA.norm(A).item(), 4))
print("norm ord=nuc", round(LA.norm(A, ord="nuc").item(), 4), "norm ord=3 dim", r4(LA.norm(R, ord=3, dim=1)))
print("torch.norm p=1", round(torch.norm(x, p=1).item(), 4), "Tensor.norm dim", r4(R.norm(dim=0)))
print("torch.norm p=fro dim", r4(torch.norm(R, p="fro", dim=(0, 1))))

# --- condition numbers ---------------------------------------------------------------------------------------
for p in [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
    print("cond", p, round(LA.cond(A, p=p).item(), 4))
H = 1.0 / (torch.arange(1, 6, dtype=f64)[:, None] + torch.arange(0, 5, dtype=f64)[None, :])
print("Hilbert cond log10", round(math.log10(LA.cond(H).item()), 2))
print("rectangular cond", round(LA.cond(R).item(), 4))
print("batched cond", r4(LA.cond(B)))

# --- determinants --------------------------------------------------------------------------------------------
print("det", round(LA.det(A).item(), 4), "torch.det", round(torch.det(A).item(), 4))
sgn, lad = LA.slogdet(B)
print("slogdet sign", sgn.tolist(), "logabsdet", r4(lad))
print("det = sign * exp", torch.allclose(LA.det(B), sgn * lad.exp()))
print("logdet of negative det", torch.logdet(-A[:1, :1]).item())
S = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64)
print("singular det", LA.det(S).item(), "slogdet", [t.item() for t in LA.slogdet(S)])
res = torch.slogdet(A)
print("slogdet type", type(res).__name__, round(res.logabsdet.item(), 4), res.sign.item())
big = 10 * torch.eye(40, dtype=f64)
print("slogdet of large", round(LA.slogdet(big).logabsdet.item(), 4))
print("float32 det", round(LA.det(A.float()).item(), 4), LA.det(A.float()).dtype)

# --- rank ----------------------------------------------------------------------------------------------------
low = torch.randn(6, 2, dtype=f64) @ torch.randn(2, 5, dtype=f64)
print("rank", LA.matrix_rank(low).item(), LA.matrix_rank(R).item(), LA.matrix_rank(A).item())
noisy = low + 1e-6 * torch.randn(6, 5, dtype=f64)
print("noisy rank", LA.matrix_rank(noisy).item(), "atol=1e-4", LA.matrix_rank(noisy, atol=1e-4).item(),
      "rtol=1e-3", LA.matrix_rank(noisy, rtol=1e-3).item())
sym = low @ low.mT
print("hermitian rank", LA.matrix_rank(sym, hermitian=True).item())
print("batched ranks", LA.matrix_rank(torch.stack([A, torch.zeros(3, 3, dtype=f64), S.repeat(2, 2)[:3, :3]])).tolist())
print("rank dtype", LA.matrix_rank(A).dtype)

# --- pseudo-inverse ------------------------------------------------------------------------------------------
P = LA.pinv(R)
print("pinv", tuple(P.shape), r4(P))
print("MP1 A P A = A", torch.allclose(R @ P @ R, R), "MP2 P A P = P", torch.allclose(P @ R @ P, P))
print("MP3 symmetric", torch.allclose((R @ P).mT, R @ P), "MP4", torch.allclose((P @ R).mT, P @ R))
print("left inverse", torch.allclose(P @ R, torch.eye(3, dtype=f64)))
print("pinv singular", r4(LA.pinv(S)))
print("pinv hermitian", torch.allclose(LA.pinv(sym, hermitian=True), LA.pinv(sym), atol=1e-8))
print("pinv rtol cut", r4(LA.pinv(torch.diag(torch.tensor([4.0, 1e-3, 0.5], dtype=f64)), rtol=1e-2)))
print("pinv atol cut", r4(LA.pinv(torch.diag(torch.tensor([4.0, 1e-3, 0.5], dtype=f64)), atol=0.6)))
print("torch.pinverse rcond", r4(torch.pinverse(torch.diag(torch.tensor([4.0, 1e-3], dtype=f64)), rcond=1e-2)))
print("batched pinv", tuple(LA.pinv(torch.randn(2, 3, 5, dtype=f64)).shape))
print("pinv of zeros", LA.pinv(torch.zeros(2, 3)).abs().sum().item())

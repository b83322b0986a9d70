"""DeltaNet's delta rule (S_t = S_{t-1}(I - beta k k^T) + beta v k^T): the sequential form, the chunkwise form with
the WY representation (a unit lower-triangular system solved by torch.linalg.solve_triangular with unitriangular=True
and by forward substitution), L2-normalised keys, and gradients through the triangular solve."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, H, L, D = 2, 2, 8, 4
q = torch.randn(B, H, L, D)
k = F.normalize(torch.randn(B, H, L, D), p=2, dim=-1)
v = torch.randn(B, H, L, D, requires_grad=True)
beta = torch.sigmoid(torch.randn(B, H, L)).requires_grad_()
print("k norms", k.norm(dim=-1).round(decimals=4).unique().tolist())


def delta_seq(q, k, v, beta):
    S = torch.zeros(B, H, D, D)
    out = []
    for t in range(L):
        kt, vt, bt = k[:, :, t], v[:, :, t], beta[:, :, t, None]
        v_old = torch.einsum("bhde,bhe->bhd", S, kt)
        S = S + torch.einsum("bhd,bhe->bhde", bt * (vt - v_old), kt)
        out.append(torch.einsum("bhde,bhe->bhd", S, q[:, :, t]))
    return torch.stack(out, 2), S


def delta_chunk(q, k, v, beta, C=4):
    S = torch.zeros(B, H, D, D)
    outs = []
    mask = torch.triu(torch.ones(C, C, dtype=torch.bool), diagonal=0)
    for qc, kc, vc, bc in zip(q.split(C, 2), k.split(C, 2), v.split(C, 2), beta.split(C, 2)):
        kb, vb = kc * bc[..., None], vc * bc[..., None]
        A = (kb @ kc.transpose(-1, -2)).masked_fill(mask, 0)
        T = torch.eye(C) + A
        W = torch.linalg.solve_triangular(T, kb, upper=False, unitriangular=True)
        U = torch.linalg.solve_triangular(T, vb, upper=False, unitriangular=True)
        u_new = U - W @ S.transpose(-1, -2)
        attn = (qc @ kc.transpose(-1, -2)).tril()
        outs.append(qc @ S.transpose(-1, -2) + attn @ u_new)
        S = S + u_new.transpose(-1, -2) @ kc
    return torch.cat(outs, 2), S


o1, S1 = delta_seq(q, k, v, beta)
o2, S2 = delta_chunk(q, k, v, beta)
print("seq", tuple(o1.shape), round(o1.sum().item(), 4), o1[0, 0, -1].round(decimals=4).tolist())
print("chunk==seq", torch.allclose(o1, o2, atol=1e-4), torch.allclose(S1, S2, atol=1e-4))
g = torch.randn_like(o1)
gv1, gb1 = torch.autograd.grad((o1 * g).sum(), (v, beta))
gv2, gb2 = torch.autograd.grad((o2 * g).sum(), (v, beta))
print(
    "grads", torch.allclose(gv1, gv2, atol=1e-4), torch.allclose(gb1, gb2, atol=1e-4), round(gb1.abs().sum().item(), 4)
)

# forward substitution by hand equals the solver
T = torch.eye(4) + torch.tril(torch.randn(4, 4), diagonal=-1) * 0.3
rhs = torch.randn(4, 2)
X = torch.zeros(4, 2)
for i in range(4):
    X[i] = rhs[i] - T[i, :i] @ X[:i]
print(
    "forward subst",
    torch.allclose(X, torch.linalg.solve_triangular(T, rhs, upper=False, unitriangular=True), atol=1e-6),
)
Tinv = torch.linalg.solve_triangular(T, torch.eye(4), upper=False)
print(
    "inverse", torch.allclose(Tinv @ T, torch.eye(4), atol=1e-5), torch.allclose(Tinv, torch.linalg.inv(T), atol=1e-5)
)
print(
    "right side", torch.allclose(torch.linalg.solve_triangular(T, rhs.T, upper=False, left=False) @ T, rhs.T, atol=1e-5)
)
Ut = torch.triu(torch.rand(3, 3)) + torch.eye(3)
print("upper", torch.linalg.solve_triangular(Ut, torch.ones(3, 1), upper=True).flatten().round(decimals=4).tolist())
print(
    "triangular_solve",
    torch.triangular_solve(torch.ones(3, 1), Ut, upper=True).solution.flatten().round(decimals=4).tolist(),
)
Tg = T.clone().requires_grad_()
torch.linalg.solve_triangular(Tg, rhs, upper=False).sum().backward()
print("T.grad tril", torch.equal(Tg.grad.triu(1), torch.zeros(4, 4)), round(Tg.grad.sum().item(), 4))
print(
    "normalize eps",
    F.normalize(torch.zeros(1, 3), dim=-1).tolist(),
    F.normalize(torch.tensor([[3.0, 4.0]]), p=1).tolist(),
)
try:
    torch.linalg.solve_triangular(T, rhs)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve_triangular(T, torch.ones(3, 2), upper=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve_triangular(T, torch.ones(4), upper=False)
except Exception as e:
    print(type(e).__name__, e)

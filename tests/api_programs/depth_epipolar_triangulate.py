"""Two-view geometry as SfM and learned-matching code writes it: the essential and fundamental matrices from a
relative pose with a skew matrix, Sampson and symmetric epipolar distances, the normalised eight-point algorithm
through torch.linalg.svd with a rank-2 projection, pose recovery candidates with the cheirality check, DLT
triangulation, reprojection errors and their gradients, batched with torch.vmap over pairs."""

import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def s(t, n=9):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


def skew(t):
    x, y, z = t.unbind(-1)
    o = torch.zeros_like(x)
    return torch.stack([torch.stack([o, -z, y], -1), torch.stack([z, o, -x], -1), torch.stack([-y, x, o], -1)], -2)


def rot_y(a):
    c, s_ = torch.cos(a), torch.sin(a)
    o, i = torch.zeros_like(a), torch.ones_like(a)
    return torch.stack([c, o, s_, o, i, o, -s_, o, c], -1).view(*a.shape, 3, 3)


K = torch.tensor([[500.0, 0.0, 320.0], [0.0, 500.0, 240.0], [0.0, 0.0, 1.0]])
R = rot_y(torch.tensor(0.1))
t = torch.tensor([1.0, 0.05, 0.1])
E = skew(t) @ R
Fm = torch.linalg.inv(K).T @ E @ torch.linalg.inv(K)
print("E", s(E / E.norm()), "rank", torch.linalg.matrix_rank(E).item())
print("F svdvals", s(torch.linalg.svdvals(Fm / Fm.norm()), 3))

X = torch.cat([torch.rand(12, 2) * 4 - 2, torch.rand(12, 1) * 5 + 4], 1)
x1h = (K @ X.T).T
x1 = x1h[:, :2] / x1h[:, 2:]
X2 = (R @ X.T).T + t
x2h = (K @ X2.T).T
x2 = x2h[:, :2] / x2h[:, 2:]
x2 = x2 + 0.3 * torch.randn_like(x2)
h1 = torch.nn.functional.pad(x1, (0, 1), value=1.0)
h2 = torch.nn.functional.pad(x2, (0, 1), value=1.0)
print("homog", s(h1[0], 3), h1.shape)

alg = torch.einsum("ni,ij,nj->n", h2, Fm, h1)
Fx1 = h1 @ Fm.T
Ftx2 = h2 @ Fm
sampson = alg**2 / (Fx1[:, 0] ** 2 + Fx1[:, 1] ** 2 + Ftx2[:, 0] ** 2 + Ftx2[:, 1] ** 2)
sym = alg**2 * (1 / (Fx1[:, :2] ** 2).sum(1) + 1 / (Ftx2[:, :2] ** 2).sum(1))
print("sampson", round(sampson.mean().item(), 4), "sym", round(sym.mean().item(), 4))


def normalise(pts):
    c = pts.mean(0)
    d = (pts - c).norm(dim=1).mean()
    sc = 2**0.5 / d
    T = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    T[:2, :2] *= sc
    T[:2, 2] = -sc * c
    return T


T1, T2 = normalise(x1), normalise(x2)
n1, n2 = h1 @ T1.T, h2 @ T2.T
A = torch.stack([n2[:, 0:1] * n1, n2[:, 1:2] * n1, n1], 1).reshape(-1, 9)
_, _, Vh = torch.linalg.svd(A)
F8 = Vh[-1].view(3, 3)
U, S, Vh2 = torch.linalg.svd(F8)
F8 = U @ torch.diag(torch.cat([S[:2], S.new_zeros(1)])) @ Vh2
F8 = T2.T @ F8 @ T1
F8 = F8 / F8[2, 2]
print("8-point", s(F8 * torch.sign(F8[0, 1]), 9), torch.linalg.matrix_rank(F8, atol=1e-8).item())
print("F residual", round(torch.einsum("ni,ij,nj->n", h2, F8, h1).abs().mean().item(), 5))

E8 = K.T @ F8 @ K
U, S, Vh = torch.linalg.svd(E8)
if torch.linalg.det(U) < 0:
    U = -U
if torch.linalg.det(Vh) < 0:
    Vh = -Vh
Wm = torch.tensor([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
cands = [(U @ Wm @ Vh, U[:, 2]), (U @ Wm @ Vh, -U[:, 2]), (U @ Wm.T @ Vh, U[:, 2]), (U @ Wm.T @ Vh, -U[:, 2])]


def triangulate(P1, P2, p1, p2):
    A = torch.stack(
        [
            p1[:, 0:1] * P1[2] - P1[0],
            p1[:, 1:2] * P1[2] - P1[1],
            p2[:, 0:1] * P2[2] - P2[0],
            p2[:, 1:2] * P2[2] - P2[1],
        ],
        1,
    )
    _, _, Vh = torch.linalg.svd(A)
    Xh = Vh[:, -1]
    return Xh[:, :3] / Xh[:, 3:]


P1 = K @ torch.eye(3, 4)
counts = []
for Rc, tc in cands:
    P2 = K @ torch.cat([Rc, tc[:, None]], 1)
    Xc = triangulate(P1, P2, x1, x2)
    z2 = (Xc @ Rc.T + tc)[:, 2]
    counts.append(int(((Xc[:, 2] > 0) & (z2 > 0)).sum()))
best = max(range(4), key=lambda i: counts[i])
Rb, tb = cands[best]
print("cheirality", sorted(counts), "angle err", round(torch.acos(((Rb.T @ R).trace() - 1) / 2).item(), 3))
print("t dir", s(tb / tb.norm() * torch.sign(tb[0]), 3), s(t / t.norm(), 3))

P2 = K @ torch.cat([R, t[:, None]], 1)
Xt = triangulate(P1, P2, x1, x2)
print("triangulated", s(Xt[:2], 6), "mean err", round((Xt - X).norm(dim=1).mean().item(), 4))
Xr = Xt.clone().requires_grad_(True)
proj = torch.cat([Xr, torch.ones(12, 1)], 1) @ P2.T
reproj = proj[:, :2] / proj[:, 2:]
err = torch.nn.functional.mse_loss(reproj, x2, reduction="sum")
err.backward()
print("reproj", round(err.item(), 4), s(Xr.grad[0], 3))

pairs = torch.stack([h1, h2], 0).unsqueeze(0).expand(3, 2, 12, 3)
batched = torch.vmap(lambda pr: torch.einsum("ni,ij,nj->n", pr[1], Fm, pr[0]))(pairs)
print("vmap", tuple(batched.shape), torch.allclose(batched[2], alg))
print("default dtype", torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.zeros(1, dtype=torch.float32).dtype)
try:
    torch.einsum("ni,ij,nj->n", h2, Fm)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.svd(torch.tensor([1.0, 2.0]))
except Exception as e:
    print(type(e).__name__, e)
torch.set_default_dtype(torch.float32)

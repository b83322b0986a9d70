"""Batched linear-algebra workflows from scientific and ML code: PCA by SVD with explained variance, orthogonal
Procrustes alignment, a Kalman update with solve and cholesky over a batch, Newton-Schulz orthogonalisation,
whitening with eigh, per-sample least squares with broadcast right-hand sides, and out= / dtype behaviour."""

import torch

torch.manual_seed(41)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4) + 0.0


def sign_fix(V):
    """Columns of V with their largest-magnitude entry positive (SVD/eigh signs are arbitrary)."""
    s = torch.sign(V.gather(-2, V.abs().argmax(-2, keepdim=True)))
    return V * torch.where(s == 0, torch.ones_like(s), s)


# --- PCA ------------------------------------------------------------------------------------------------------
basis = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.7, 0.0], [0.0, 0.0, 0.1]], dtype=f64)
data = torch.randn(200, 3, dtype=f64) @ basis @ torch.linalg.qr(torch.randn(3, 3, dtype=f64)).Q
centered = data - data.mean(0)
U, S, Vh = LA.svd(centered, full_matrices=False)
var = S ** 2 / (data.shape[0] - 1)
print("explained variance", r4(var), "ratio", r4(var / var.sum()))
comps = sign_fix(Vh.mT)
print("components", r4(comps))
cov = torch.cov(centered.T)
w, V = LA.eigh(cov)
print("eigh of cov matches", torch.allclose(w.flip(0), var), torch.allclose(sign_fix(V.flip(-1)), comps))
proj = centered @ comps[:, :2]
print("projected", tuple(proj.shape), r4(proj[:3]))
print("pca_lowrank shapes", [tuple(t.shape) for t in torch.pca_lowrank(data, q=2, center=True)])

# --- Procrustes ----------------------------------------------------------------------------------------------
Rtrue = torch.linalg.matrix_exp(torch.tensor([[0.0, -0.4, 0.1], [0.4, 0.0, -0.3], [-0.1, 0.3, 0.0]], dtype=f64))
P = torch.randn(10, 3, dtype=f64)
Qp = P @ Rtrue + 0.001 * torch.randn(10, 3, dtype=f64)
Up, _, Vhp = LA.svd(P.mT @ Qp)
Rhat = Up @ Vhp
print("Procrustes error", round((Rhat - Rtrue).abs().max().item(), 3), "det", round(LA.det(Rhat).item(), 4))

# --- Kalman update over a batch of filters ---------------------------------------------------------------------
B = 4
F = torch.tensor([[1.0, 0.1], [0.0, 1.0]], dtype=f64)
Hm = torch.tensor([[1.0, 0.0]], dtype=f64)
Qn = 0.01 * torch.eye(2, dtype=f64)
Rn = torch.tensor([[0.25]], dtype=f64)
mean = torch.zeros(B, 2, 1, dtype=f64)
Pcov = torch.eye(2, dtype=f64).expand(B, 2, 2).clone()
truth = torch.randn(B, 1, dtype=f64)
for t in range(15):
    mean = F @ mean
    Pcov = F @ Pcov @ F.mT + Qn
    z = (truth + 0.1 * t) + 0.5 * torch.randn(B, 1, dtype=f64)
    Smat = Hm @ Pcov @ Hm.mT + Rn
    K = LA.solve(Smat, Hm @ Pcov, left=True).mT
    mean = mean + K @ (z[..., None] - Hm @ mean)
    Pcov = (torch.eye(2, dtype=f64) - K @ Hm) @ Pcov
print("Kalman means", r4(mean.squeeze(-1)))
print("Kalman variances", r4(torch.diagonal(Pcov, dim1=-2, dim2=-1)))
Lc = LA.cholesky(Pcov)
print("cov PD", LA.cholesky_ex(Pcov).info.tolist(), "logdet", r4(2 * Lc.diagonal(dim1=-2, dim2=-1).log().sum(-1)))

# --- Newton-Schulz orthogonalisation ---------------------------------------------------------------------------
G = torch.randn(3, 5, 4, dtype=f64)
X = G / LA.matrix_norm(G, keepdim=True)
for _ in range(25):
    X = 1.5 * X - 0.5 * X @ X.mT @ X
Ug, _, Vhg = LA.svd(G, full_matrices=False)
print("Newton-Schulz = polar factor", torch.allclose(X, Ug @ Vhg, atol=1e-6))
print("orthonormal columns", r4((X.mT @ X - torch.eye(4, dtype=f64)).abs().amax(dim=(-2, -1))))

# --- whitening -----------------------------------------------------------------------------------------------
feats = torch.randn(3, 50, 4, dtype=f64) @ torch.randn(4, 4, dtype=f64)
fc = feats - feats.mean(1, keepdim=True)
C = fc.mT @ fc / 49
ew, EV = LA.eigh(C)
Wzca = EV @ torch.diag_embed(ew.rsqrt()) @ EV.mT
white = fc @ Wzca
print("whitened cov = I", torch.allclose(white.mT @ white / 49, torch.eye(4, dtype=f64).expand(3, 4, 4)))
print("ZCA symmetric", torch.allclose(Wzca, Wzca.mT), "eig ranges", r4(ew[:, 0]), r4(ew[:, -1]))
Lw = LA.cholesky(C)
white2 = LA.solve_triangular(Lw, fc.mT, upper=False).mT
print("cholesky whitening", torch.allclose(white2.mT @ white2 / 49, torch.eye(4, dtype=f64).expand(3, 4, 4)))

# --- per-sample least squares, broadcast -----------------------------------------------------------------------
design = torch.randn(5, 8, 3, dtype=f64)
targets = torch.randn(8, 2, dtype=f64)
sol = LA.lstsq(design, targets.expand(5, 8, 2)).solution
print("lstsq per sample", tuple(sol.shape), r4(sol[0]))
pin = LA.pinv(design) @ targets
print("pinv agrees", torch.allclose(pin, sol))
normal = torch.cholesky_solve(design.mT @ targets, LA.cholesky(design.mT @ design))
print("normal equations agree", torch.allclose(normal, sol))
shared = LA.solve(torch.eye(3, dtype=f64) * 2, torch.randn(6, 3, 1, dtype=f64))
print("broadcast A over rhs batch", tuple(shared.shape))

# --- out= and dtypes -----------------------------------------------------------------------------------------
A = torch.randn(3, 3, dtype=f64) + 3 * torch.eye(3, dtype=f64)
out = torch.empty(0, dtype=f64)
LA.inv(A, out=out)
print("inv out= resized", tuple(out.shape), torch.allclose(out, LA.inv(A)))
res = torch.empty(3, dtype=f64)
LA.vector_norm(A, dim=0, out=res)
print("vector_norm out=", r4(res))
Lout, info = torch.empty(3, 3, dtype=f64), torch.empty(0, dtype=torch.int32)
LA.cholesky_ex(A @ A.mT, out=(Lout, info))
print("cholesky_ex out=", r4(Lout.diagonal()), info.item(), info.dtype)
print("float32 results", LA.inv(A.float()).dtype, LA.svdvals(A.float()).dtype, LA.eigvalsh(A.float()).dtype)
print("mixed solve via promotion", LA.solve(A, torch.ones(3, dtype=f64)).dtype)
print("empty batch", tuple(LA.inv(torch.empty(0, 3, 3)).shape), tuple(LA.svdvals(torch.empty(2, 0, 3)).shape))
print("det empty batch", LA.det(torch.empty(0, 2, 2)).shape, "det 0x0", LA.det(torch.empty(0, 0)).item())

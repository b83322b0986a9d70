"""Charge equilibration (QEq) for a batch of molecules: per-atom electronegativity and hardness looked up by atomic
number, shielded Coulomb matrices from cdist masked per molecule, the constrained linear system (total charge per
molecule) solved block by block with torch.linalg.solve on a padded batch and once as one block-diagonal system,
dipoles from segment sums, and gradients of the electrostatic energy to positions through the solve."""

import torch
nn = torch.nn

torch.manual_seed(0)
dt = torch.float64

chi_tab = torch.tensor([0.0, 4.53, 0.0, 0.0, 0.0, 0.0, 5.34, 6.90, 8.74], dtype=dt)   # by atomic number
eta_tab = torch.tensor([0.0, 13.89, 0.0, 0.0, 0.0, 0.0, 10.13, 11.76, 13.36], dtype=dt)

z = torch.tensor([8, 1, 1, 6, 8, 1, 1, 7, 1, 1, 1])
batch = torch.tensor([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
total_q = torch.tensor([0.0, 0.0, 1.0], dtype=dt)
pos = torch.tensor([[0.0, 0.0, 0.0], [0.96, 0.0, 0.0], [-0.24, 0.93, 0.0],
                    [5.0, 0.0, 0.0], [6.2, 0.0, 0.0], [4.45, 0.94, 0.0], [4.45, -0.94, 0.0],
                    [0.0, 6.0, 0.0], [1.0, 6.0, 0.0], [-0.33, 6.94, 0.0], [-0.33, 5.53, 0.82]], dtype=dt)
chi, eta = chi_tab[z], eta_tab[z]
print("chi", chi.tolist())
counts = torch.bincount(batch)
B, N = counts.numel(), z.numel()


def coulomb(p):
    r = torch.cdist(p, p)
    J = 14.4 / torch.sqrt(r ** 2 + 0.8 ** 2)          # shielded, eV*A
    same = batch[:, None] == batch[None, :]
    J = torch.where(same, J, torch.zeros((), dtype=dt))
    return J + torch.diag(eta - torch.diagonal(J))


def qeq_block(p):
    """One (N+B) x (N+B) system: A q + C^T lam = -chi, C q = Q."""
    A = coulomb(p)
    C = torch.zeros(B, N, dtype=dt)
    C[batch, torch.arange(N)] = 1.0
    K = torch.cat([torch.cat([A, C.T], 1), torch.cat([C, torch.zeros(B, B, dtype=dt)], 1)], 0)
    rhs = torch.cat([-chi, total_q])
    sol = torch.linalg.solve(K, rhs)
    return sol[:N], sol[N:], K


q, lam, K = qeq_block(pos)
print("K", tuple(K.shape), "cond", round(torch.linalg.cond(K).item(), 2))
print("charges", q.round(decimals=4).tolist())
print("totals", torch.zeros(B, dtype=dt).index_add(0, batch, q).round(decimals=6).tolist())
print("mu (chem pot)", lam.round(decimals=4).tolist())

# the same per molecule on a padded batch: pad with identity rows so the solve stays regular
max_n = int(counts.max())
ptr = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)])
local = torch.arange(N) - ptr[batch]
A = coulomb(pos)
mask = torch.zeros(B, max_n, dtype=torch.bool)
mask[batch, local] = True
Ab = torch.eye(max_n + 1, dtype=dt).repeat(B, 1, 1)
for m in range(B):
    sl = slice(int(ptr[m]), int(ptr[m + 1]))
    k = int(counts[m])
    Ab[m, :k, :k] = A[sl, sl]
Ab[:, :max_n, max_n] = mask.to(dt)
Ab[:, max_n, :max_n] = mask.to(dt)
Ab[:, max_n, max_n] = 0.0
rhs = torch.zeros(B, max_n + 1, dtype=dt)
rhs[batch, local] = -chi
rhs[:, max_n] = total_q
solb = torch.linalg.solve(Ab, rhs.unsqueeze(-1)).squeeze(-1)
qb = solb[:, :max_n][mask]
print("batched agrees", torch.allclose(qb, q, atol=1e-10), solb.shape)
lu, piv = torch.linalg.lu_factor(Ab)
print("lu_solve agrees", torch.allclose(torch.linalg.lu_solve(lu, piv, rhs.unsqueeze(-1)).squeeze(-1), solb))
print("block_diag", torch.block_diag(*[Ab[i, :2, :2] for i in range(B)]).shape)

# dipole moments per molecule (charge-weighted positions about the centre of charge-neutral frame)
dip = torch.zeros(B, 3, dtype=dt).index_add(0, batch, q[:, None] * pos)
print("dipole norms", torch.linalg.vector_norm(dip[:2], dim=-1).round(decimals=4).tolist())

# electrostatic energy and its gradient through the linear solve (implicit differentiation by autograd)
pr = pos.clone().requires_grad_(True)
qr, _, _ = qeq_block(pr)
E = (chi * qr).sum() + 0.5 * qr @ coulomb(pr) @ qr
(g,) = torch.autograd.grad(E, pr)
print("E", round(E.item(), 4), "grad norm", round(g.norm().item(), 4))
print("net force per mol", torch.zeros(B, 3, dtype=dt).index_add(0, batch, g).abs().max().item() < 1e-8)
print("solve grad_fn", qr.grad_fn.name())
for name, fn in {
    "singular": lambda: torch.linalg.solve(torch.zeros(2, 2, dtype=dt), torch.ones(2, dtype=dt)),
    "shape": lambda: torch.linalg.solve(K, torch.ones(3, dtype=dt)),
    "dtype": lambda: torch.linalg.solve(K, torch.ones(N + B)),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])

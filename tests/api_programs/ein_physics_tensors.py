"""Tensor algebra of mechanics and geometry: the Levi-Civita symbol by einsum, inertia tensors, rotations by
Rodrigues' formula and matrix powers, stress invariants, strain from a displacement gradient, and torques, with
gradients of energies checked against their closed forms."""

import itertools

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
torch.set_default_dtype(torch.float64)

# Levi-Civita symbol
eps = torch.zeros(3, 3, 3)
for p in itertools.permutations(range(3)):
    sign = torch.linalg.det(torch.eye(3)[list(p)]).round()
    eps[p] = sign
print("eps nonzeros", int((eps != 0).sum()), "sum", eps.sum().item())
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([-1.0, 0.5, 2.0])
cross_e = torch.einsum("ijk,j,k->i", eps, a, b)
print("cross by eps", cross_e, torch.allclose(cross_e, torch.linalg.cross(a, b)))
# eps_ijk eps_imn = d_jm d_kn - d_jn d_km
lhs = torch.einsum("ijk,imn->jkmn", eps, eps)
I3 = torch.eye(3)
rhs = torch.einsum("jm,kn->jkmn", I3, I3) - torch.einsum("jn,km->jkmn", I3, I3)
print("contraction identity:", torch.equal(lhs, rhs))
print("eps_ijk eps_ijk =", torch.einsum("ijk,ijk->", eps, eps).item())
# skew matrix of a vector: [a]_x b = a x b
skew = -torch.einsum("ijk,k->ij", eps, a)
print("skew\n", skew)
print("skew @ b == cross:", torch.allclose(skew @ b, torch.linalg.cross(a, b)))
print("skew antisymmetric:", torch.equal(skew, -skew.T))

# inertia tensor of point masses: I = sum m (|r|^2 E - r r^T)
r = torch.randn(6, 3)
m = torch.rand(6) + 0.5
com = torch.einsum("n,ni->i", m, r) / m.sum()
rc = r - com
I = torch.einsum("n,nk,nk->", m, rc, rc) * torch.eye(3) - torch.einsum("n,ni,nj->ij", m, rc, rc)  # noqa: E741
I_loop = sum(mi * (ri.dot(ri) * torch.eye(3) - torch.outer(ri, ri)) for mi, ri in zip(m, rc))
print("inertia\n", I)
print("matches loop:", torch.allclose(I, I_loop))
principal, axes = torch.linalg.eigh(I)
print("principal moments", principal)
print("axes orthonormal:", torch.allclose(axes.T @ axes, torch.eye(3)))
print("triangle inequality:", bool(principal[0] + principal[1] >= principal[2]))
print("trace invariant", round(torch.trace(I).item(), 4), round(principal.sum().item(), 4))

# rotations: Rodrigues' formula, composition and matrix powers
def rodrigues(axis, angle):
    k = axis / axis.norm()
    K = -torch.einsum("ijk,k->ij", eps, k)
    return torch.eye(3) + torch.sin(angle) * K + (1 - torch.cos(angle)) * (K @ K)


axis = torch.tensor([0.0, 0.0, 1.0])
R = rodrigues(axis, torch.tensor(torch.pi / 6))
print("R (30 deg about z)\n", R)
print("orthogonal:", torch.allclose(R.T @ R, torch.eye(3)), "det", round(torch.linalg.det(R).item(), 4))
R12 = torch.linalg.matrix_power(R, 12)
print("R^12 == I:", torch.allclose(R12, torch.eye(3)))
print("R^-1 == R^T:", torch.allclose(torch.linalg.matrix_power(R, -1), R.T))
print("R^3 == 90 deg:", torch.allclose(torch.linalg.matrix_power(R, 3), rodrigues(axis, torch.tensor(torch.pi / 2))))
print("matrix_exp of skew == Rodrigues:",
      torch.allclose(torch.linalg.matrix_exp(torch.pi / 6 * -torch.einsum("ijk,k->ij", eps, axis)), R))
# rotate a batch of points and a tensor (I' = R I R^T)
pts = torch.randn(4, 3)
rot = torch.einsum("ij,nj->ni", R, pts)
print("rotated points match matmul:", torch.allclose(rot, pts @ R.T))
I_rot = torch.einsum("ia,jb,ab->ij", R, R, I)
print("rotated inertia eigenvalues unchanged:", torch.allclose(torch.linalg.eigvalsh(I_rot), principal))
# batched rotations about random axes via ellipsis
axes_b = torch.randn(5, 3)
angles = torch.rand(5) * torch.pi
Rs = torch.stack([rodrigues(ax, an) for ax, an in zip(axes_b, angles)])
dets = torch.linalg.det(Rs)
print("batch dets", dets)
traces = torch.einsum("...ii->...", Rs)
print("angles recovered:", torch.allclose(torch.acos((traces - 1) / 2), angles, atol=1e-6))

# stress tensor invariants and the von Mises stress
sigma = torch.tensor([[50.0, 30.0, 0.0], [30.0, -20.0, 10.0], [0.0, 10.0, 5.0]])
I1 = torch.trace(sigma)
I2 = 0.5 * (I1**2 - torch.einsum("ij,ji->", sigma, sigma))
I3_ = torch.linalg.det(sigma)
print("invariants", round(I1.item(), 4), round(I2.item(), 4), round(I3_.item(), 4))
dev = sigma - I1 / 3 * torch.eye(3)
J2 = 0.5 * torch.einsum("ij,ij->", dev, dev)
print("von Mises", round(torch.sqrt(3 * J2).item(), 4))
principal_s = torch.linalg.eigvalsh(sigma)
print("principal stresses", principal_s)
print("characteristic polynomial vanishes:",
      torch.allclose(principal_s**3 - I1 * principal_s**2 + I2 * principal_s - I3_, torch.zeros(3), atol=1e-8))
traction = torch.einsum("ij,j->i", sigma, torch.tensor([1.0, 1.0, 0.0]) / 2**0.5)
print("traction", traction)

# small strain from a displacement gradient, and the elastic energy with its gradient
lam, mu = 1.2, 0.8
grad_u = torch.randn(3, 3) * 0.01
grad_u.requires_grad_()
strain = 0.5 * (grad_u + grad_u.T)
stress = lam * torch.trace(strain) * torch.eye(3) + 2 * mu * strain
W = 0.5 * torch.einsum("ij,ij->", stress, strain)
W.backward()
print("energy", round(W.item() * 1e4, 4), "e-4")
print("dW/d(grad u) == stress:", torch.allclose(grad_u.grad, stress.detach()))
# isotropic stiffness as a 4th-order tensor and its double contraction
C = lam * torch.einsum("ij,kl->ijkl", I3, I3) + mu * (torch.einsum("ik,jl->ijkl", I3, I3)
                                                    + torch.einsum("il,jk->ijkl", I3, I3))
print("C:eps == stress:", torch.allclose(torch.einsum("ijkl,kl->ij", C, strain.detach()), stress.detach()))
print("major symmetry:", torch.equal(C, C.permute(2, 3, 0, 1)), "minor:", torch.equal(C, C.transpose(0, 1)))
print("C as 9x9 rank", torch.linalg.matrix_rank(C.reshape(9, 9)).item())

# torques and angular momentum of a rigid body
F_ = torch.randn(6, 3)
torque = torch.linalg.cross(rc, F_).sum(0)
torque_eps = torch.einsum("ijk,nj,nk->i", eps, rc, F_)
print("torque", torque, torch.allclose(torque, torque_eps))
omega = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
vel = torch.linalg.cross(omega.expand_as(rc), rc)
L_mom = torch.einsum("n,ijk,nj,nk->i", m, eps, rc, vel)
print("L == I omega:", torch.allclose(L_mom, I @ omega))
T_kin = 0.5 * torch.einsum("n,ni,ni->", m, vel, vel)
T_kin.backward()
print("kinetic energy", round(T_kin.item(), 4), "dT/domega == I omega:", torch.allclose(omega.grad, I @ omega.detach()))
torch.set_default_dtype(torch.float32)

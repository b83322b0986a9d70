"""Matrix functions and tensor algebra from physics and ML code: matrix_power (negative exponents), matrix_exp
(rotations, nilpotents, batches), cross with broadcasting, multi_dot chains, vander, tensorsolve/tensorinv,
diagonal, vecdot, and Tensor-method spellings of the same calls."""

import torch

torch.manual_seed(7)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4)


# --- matrix_power --------------------------------------------------------------------------------------------
A = torch.tensor([[2.0, 1.0], [1.0, 1.0]], dtype=f64)
for n in [0, 1, 2, 5, -1, -3]:
    print("A^", n, r4(LA.matrix_power(A, n)).tolist())
F = torch.tensor([[1, 1], [1, 0]])
print("fibonacci via int power", LA.matrix_power(F, 10).tolist(), LA.matrix_power(F, 10).dtype)
Ab = torch.randn(3, 3, 3, dtype=f64) + 3 * torch.eye(3, dtype=f64)
print("batched power", torch.allclose(LA.matrix_power(Ab, 3), Ab @ Ab @ Ab))
print("batched negative", torch.allclose(LA.matrix_power(Ab, -2), LA.inv(Ab @ Ab)))
print("Tensor.matrix_power", r4(A.matrix_power(3)).tolist())

# --- matrix_exp ----------------------------------------------------------------------------------------------
theta = 0.7
K = torch.tensor([[0.0, -theta], [theta, 0.0]], dtype=f64)
Rm = LA.matrix_exp(K)
print("exp of generator", r4(Rm).tolist(), round(torch.cos(torch.tensor(theta)).item(), 4))
print("orthogonal", torch.allclose(Rm @ Rm.mT, torch.eye(2, dtype=f64)), "det", round(LA.det(Rm).item(), 4))
Nil = torch.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]], dtype=f64)
print("nilpotent exp", LA.matrix_exp(Nil).tolist())
D = torch.diag(torch.tensor([0.0, 1.0, -2.0], dtype=f64))
print("diagonal exp", r4(torch.diagonal(LA.matrix_exp(D))).tolist())
Sk = torch.randn(4, 3, 3, dtype=f64)
Sk = Sk - Sk.mT
Q = torch.matrix_exp(Sk)
print("batched SO(3)", tuple(Q.shape), r4(LA.det(Q)).tolist())
print("exp(A)exp(-A)=I", torch.allclose(LA.matrix_exp(A) @ LA.matrix_exp(-A), torch.eye(2, dtype=f64)))
print("float32 matrix_exp", r4(LA.matrix_exp(K.float())), Sk.float().matrix_exp().dtype)
Gen = torch.tensor([[-0.5, 0.5, 0.0], [0.1, -0.3, 0.2], [0.0, 0.4, -0.4]], dtype=f64)
Pt = LA.matrix_exp(2.0 * Gen)
print("CTMC transition rows", r4(Pt), r4(Pt.sum(-1)).tolist())

# --- cross ---------------------------------------------------------------------------------------------------
e1 = torch.tensor([1.0, 0.0, 0.0])
e2 = torch.tensor([0.0, 1.0, 0.0])
print("e1 x e2", LA.cross(e1, e2).tolist())
u = torch.randn(5, 3, dtype=f64)
v = torch.randn(5, 3, dtype=f64)
w = LA.cross(u, v)
print("orthogonal to both", r4(LA.vecdot(w, u).abs().max()).item(), r4(LA.vecdot(w, v).abs().max()).item())
print("broadcast cross", tuple(LA.cross(u[:, None], v[None]).shape))
print("dim=0 cross", r4(LA.cross(u.mT, v.mT, dim=0)[:, 0]).tolist(), r4(w[0]).tolist())
print("torch.cross dim", r4(torch.cross(u, v, dim=1)[1]).tolist())
print("anticommutative", torch.allclose(LA.cross(u, v), -LA.cross(v, u)))

# --- multi_dot -----------------------------------------------------------------------------------------------
mats = [torch.randn(2, 6, dtype=f64), torch.randn(6, 5, dtype=f64), torch.randn(5, 3, dtype=f64),
        torch.randn(3, 4, dtype=f64)]
md = LA.multi_dot(mats)
print("multi_dot", tuple(md.shape), torch.allclose(md, mats[0] @ mats[1] @ mats[2] @ mats[3]))
print("multi_dot vector ends", tuple(LA.multi_dot([torch.randn(6, dtype=f64), mats[1], mats[2]]).shape))
print("multi_dot scalar", round(LA.multi_dot([torch.ones(3, dtype=f64), torch.eye(3, dtype=f64),
                                              torch.arange(3.0, dtype=f64)]).item(), 4))
print("chain_matmul", torch.allclose(torch.linalg.multi_dot(mats[:2]), mats[0] @ mats[1]))

# --- vander --------------------------------------------------------------------------------------------------
xs = torch.tensor([1.0, 2.0, 3.0, 0.5], dtype=f64)
V = LA.vander(xs)
print("vander", V.tolist())
print("vander N=3", LA.vander(xs, N=3).tolist())
coef = LA.solve(V, torch.tensor([1.0, 0.0, 2.0, -1.0], dtype=f64))
print("interpolating poly", r4(coef).tolist())
print("torch.vander decreasing", torch.vander(torch.tensor([2, 3]), N=3).tolist())
print("torch.vander increasing", torch.vander(xs[:2], increasing=True).tolist())
ys = torch.sin(torch.linspace(0, 3, 12, dtype=f64))
fit = LA.lstsq(LA.vander(torch.linspace(0, 3, 12, dtype=f64), N=4), ys[:, None]).solution
print("cubic fit", r4(fit.flatten()).tolist())

# --- tensorsolve / tensorinv ---------------------------------------------------------------------------------
T = torch.randn(2 * 3, 6, dtype=f64) + 4 * torch.eye(6, dtype=f64)
T = T.reshape(2, 3, 6)
Bt = torch.randn(2, 3, dtype=f64)
Xt = LA.tensorsolve(T, Bt)
print("tensorsolve", tuple(Xt.shape), torch.allclose(torch.tensordot(T, Xt, dims=1), Bt))
T4 = torch.eye(6, dtype=f64).add(0.1 * torch.randn(6, 6, dtype=f64)).reshape(6, 2, 3)
Ti = LA.tensorinv(T4, ind=1)
print("tensorinv shape", tuple(Ti.shape), torch.allclose(torch.tensordot(T4, Ti, dims=2), torch.eye(6, dtype=f64)))
T22 = (4 * torch.eye(4, dtype=f64) + torch.randn(4, 4, dtype=f64)).reshape(2, 2, 2, 2)
Xd = LA.tensorsolve(T22, torch.ones(2, 2, dtype=f64), dims=(0,))
print("tensorsolve dims", tuple(Xd.shape))
print("tensorinv ind=2", tuple(LA.tensorinv(T22, ind=2).shape))

# --- diagonal and vecdot -------------------------------------------------------------------------------------
M = torch.arange(24.0).reshape(2, 3, 4)
print("linalg.diagonal", LA.diagonal(M).tolist())
print("offset=1", LA.diagonal(M, offset=1).tolist(), "offset=-1", LA.diagonal(M, offset=-1).tolist())
print("dim1=0 dim2=2", LA.diagonal(M, dim1=0, dim2=2).tolist())
a = torch.randn(3, 4, dtype=f64)
b = torch.randn(4, dtype=f64)
print("vecdot", r4(LA.vecdot(a, b)).tolist(), r4(a @ b).tolist())
print("vecdot dim=0", r4(LA.vecdot(a, a, dim=0)).tolist())
z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128)
print("complex vecdot conjugates", LA.vecdot(z, z).item(), torch.vdot(z, z).item())
print("trace batch", torch.diagonal(M, dim1=-2, dim2=-1).sum(-1).tolist())
print("diag_embed", torch.diag_embed(torch.tensor([1.0, 2.0]), offset=1).tolist())

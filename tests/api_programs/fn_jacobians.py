"""jacrev/jacfwd/hessian with argnums tuples, has_aux, chunk_size, randomness, pytrees, and their errors."""

import torch
from torch.func import hessian, jacfwd, jacrev, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


def f(x, y):
    return torch.stack([x[0] * y[1], torch.sin(x[1]) + y[0] ** 2, (x * y).sum()])


x = torch.randn(2)
y = torch.randn(2)
jx = jacrev(f)(x, y)
print("jacrev x", jx)
jx2, jy2 = jacrev(f, argnums=(0, 1))(x, y)
print("jacrev argnums", jx2.shape, jy2.shape, torch.allclose(jx, jx2))
fx, fy = jacfwd(f, argnums=(0, 1))(x, y)
print("fwd == rev", torch.allclose(fx, jx2, atol=1e-6), torch.allclose(fy, jy2, atol=1e-6))
print("jacfwd y", fy)

# Jacobian of a matrix-valued function: output shape + input shape
W = torch.randn(3, 4)
J = jacrev(lambda w: torch.tanh(w @ torch.ones(4)))(W)
print("matrix jac shape", J.shape)
print("row sums", J.sum(dim=(1, 2)))

# has_aux
def with_aux(x):
    y = x.exp()
    return y, {"sum": y.sum()}


j, aux = jacrev(with_aux, has_aux=True)(torch.tensor([0.0, 1.0]))
print("has_aux", j, round(aux["sum"].item(), 4))
j, aux = jacfwd(with_aux, has_aux=True)(torch.tensor([0.0, 1.0]))
print("fwd has_aux", j.diag(), round(aux["sum"].item(), 4))

# chunk_size does not change the answer
z = torch.randn(7)
g = lambda t: torch.cumsum(t ** 2, 0)
full = jacrev(g)(z)
print("chunked", torch.allclose(full, jacrev(g, chunk_size=2)(z)), torch.allclose(full, jacrev(g, chunk_size=1)(z)))
show("chunk 0", lambda: jacrev(g, chunk_size=0)(z))

# pytree outputs and inputs
def tree_fn(p):
    return {"a": p["w"] * 2, "b": (p["w"] * p["b"]).sum()}


p = {"w": torch.tensor([1.0, 2.0]), "b": torch.tensor(3.0)}
jt = jacrev(tree_fn)(p)
print("tree keys", sorted(jt), sorted(jt["a"]))
print("d a / d w", jt["a"]["w"])
print("d b / d b", jt["b"]["b"], "d b / d w", jt["b"]["w"])

# hessian == jacfwd(jacrev)
def energy(q):
    return (q ** 4).sum() / 4 - (q[0] * q[1]) + torch.cos(q).sum()


q = torch.tensor([0.3, -1.2, 0.7])
H = hessian(energy)(q)
print("hessian", H)
print("symmetric", torch.allclose(H, H.T), torch.allclose(H, jacfwd(jacrev(energy))(q), atol=1e-6))
print("jacrev(jacrev)", torch.allclose(H, jacrev(jacrev(energy))(q), atol=1e-6))
Hb = hessian(lambda a, b: (a * b).sum() * (a ** 2).sum(), argnums=1)(q, q + 1)
print("hessian argnums=1", Hb.abs().max().item())

# batched Jacobians with vmap
xs = torch.randn(5, 3)
Jb = vmap(jacrev(torch.sin))(xs)
print("batched jac", Jb.shape, torch.allclose(torch.diagonal(Jb, dim1=1, dim2=2), torch.cos(xs)))

# Jacobian of a network w.r.t. input: log-det of a small invertible map
lin = torch.nn.Linear(3, 3).double()
xi = torch.randn(3, dtype=torch.float64)
Jn = jacrev(lambda v: torch.tanh(lin(v)) + v)(xi)
print("logdet", round(torch.linalg.slogdet(Jn)[1].item(), 4), Jn.dtype)

# randomness in jacrev: dropout in train mode needs the flag under vmap
drop = torch.nn.Dropout(0.5)
show("jacrev dropout", lambda: jacrev(drop)(torch.ones(3)).shape)

# errors
show("int input", lambda: jacrev(lambda t: t * 2)(torch.arange(3)))
show("aux missing", lambda: jacrev(lambda t: t * 2, has_aux=True)(torch.ones(2)))
show("argnums oob", lambda: jacfwd(f, argnums=2)(x, y))
show("non-tensor out", lambda: jacrev(lambda t: 3.0)(torch.ones(2)))
show("jacfwd non-tensor", lambda: jacfwd(lambda t: [t, 1])(torch.ones(2)))
show("hessian nonscalar ok", lambda: hessian(lambda t: t ** 3)(torch.ones(2)).shape)

"""torch.func.vmap as JAX-style code uses it: nested in_dims/out_dims, pytrees, chunk_size, randomness, errors."""

import torch
import torch.nn.functional as F
from torch.func import vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


# batched dot / matrix-vector products
a = torch.randn(4, 3)
b = torch.randn(4, 3)
print("dot", vmap(torch.dot)(a, b))
m = torch.randn(5, 3)
print("mv in_dims=(None,0)", vmap(torch.mv, in_dims=(None, 0))(m, a).shape)
print("mv in_dims=(None,1)", vmap(torch.mv, in_dims=(None, 1))(m, a.T.contiguous()).shape)

# out_dims moves the batch dimension of the result
x = torch.randn(2, 3)
y = vmap(lambda r: r * 2, out_dims=1)(x)
print("out_dims=1", y.shape, torch.equal(y, (x * 2).T))
print("negative in_dims", vmap(lambda r: r.sum(), in_dims=-1)(x))

# nested vmap: outer product-like tables
xs = torch.arange(3.0)
ys = torch.arange(4.0)
table = vmap(vmap(lambda p, q: p * 10 + q, in_dims=(None, 0)), in_dims=(0, None))(xs, ys)
print("table", table)

# pairwise distances by nested vmap
pts = torch.randn(5, 2)
dist = vmap(vmap(lambda p, q: (p - q).norm(), in_dims=(None, 0)), in_dims=(0, None))(pts, pts)
print("pairwise matches cdist", torch.allclose(dist, torch.cdist(pts, pts), atol=1e-5))
print("diag", dist.diag())

# pytree inputs: dict and tuple with nested in_dims
def f(inp, scale):
    return inp["x"] * scale + inp["y"][0] - inp["y"][1]


inp = {"x": torch.randn(3, 2), "y": (torch.randn(2), torch.randn(3, 2))}
out = vmap(f, in_dims=({"x": 0, "y": (None, 0)}, None))(inp, 2.0)
print("pytree in_dims", out.shape)
ref = torch.stack([inp["x"][i] * 2.0 + inp["y"][0] - inp["y"][1][i] for i in range(3)])
print("pytree matches loop", torch.allclose(out, ref))

# multiple outputs and nested out_dims
def stats(r):
    return r.mean(), (r.max(), r - r.mean())


mean, (mx, centered) = vmap(stats, out_dims=(0, (0, 1)))(torch.randn(4, 6))
print("outs", mean.shape, mx.shape, centered.shape)
print("out_dims None", vmap(lambda r: (r.sum(), torch.ones(2)), out_dims=(0, None))(x)[1])

# chunk_size gives the same answer
big = torch.randn(10, 8)
w = torch.randn(8, 3)
full = vmap(lambda r: F.softmax(r @ w, -1))(big)
chunked = vmap(lambda r: F.softmax(r @ w, -1), chunk_size=3)(big)
print("chunked equal", torch.allclose(full, chunked), full.sum(-1))

# in-place on a fresh per-sample tensor
def normalise(r):
    out = r.clone()
    out.sub_(out.mean())
    out.div_(out.std())
    return out


z = vmap(normalise)(torch.randn(3, 5))
print("normalised", [round(v, 4) for v in z.mean(1).tolist()], [round(v, 4) for v in z.std(1).tolist()])

# batched matmul and einsum
A = torch.randn(6, 2, 3)
B = torch.randn(6, 3, 4)
print("bmm", torch.allclose(vmap(torch.mm)(A, B), torch.bmm(A, B), atol=1e-6))
print("einsum", vmap(lambda p, q: torch.einsum("ij,jk->ik", p, q))(A, B).shape)

# randomness
torch.manual_seed(1)
print("rand same", vmap(lambda r: r + torch.rand(()), randomness="same")(torch.zeros(3)))
torch.manual_seed(1)
d = vmap(lambda r: F.dropout(r, 0.5), randomness="different")(torch.ones(3, 4))
print("dropout differs across rows", not torch.equal(d[0], d[1]), d.shape)
show("rand error", lambda: vmap(lambda r: r + torch.rand(()))(torch.zeros(3)))
show("randn_like error", lambda: vmap(lambda r: torch.randn_like(r))(torch.zeros(3, 2)))
show("bad randomness", lambda: vmap(lambda r: r, randomness="sometimes")(torch.zeros(3)))

# errors
show("size mismatch", lambda: vmap(torch.add)(torch.ones(3), torch.ones(4)))
show("in_dim too big", lambda: vmap(lambda r: r, in_dims=2)(torch.ones(2, 2)))
show("no tensors", lambda: vmap(lambda r: r)(3.0))
show("float output", lambda: vmap(lambda r: 1.0)(torch.ones(3)))
show("item", lambda: vmap(lambda r: r.sum().item())(torch.ones(3, 2)))
show("in_dims len", lambda: vmap(torch.add, in_dims=(0,))(torch.ones(3), torch.ones(3)))
show("out_dims bad", lambda: vmap(lambda r: r, out_dims=3)(torch.ones(3, 2)))
show("in_dims type", lambda: vmap(lambda r: r, in_dims="0")(torch.ones(3)))
show("bool", lambda: vmap(lambda r: r if r.sum() > 0 else -r)(torch.ones(3, 2)))

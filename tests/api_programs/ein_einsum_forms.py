"""torch.einsum in the forms numerical code writes: implicit and explicit outputs, ellipsis, traces and diagonals,
the sublist format, bilinear forms and attention, with gradients checked against the explicit ops."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

a = torch.randn(3, 4)
b = torch.randn(4, 5)
v = torch.randn(4)
w = torch.randn(4)
sq = torch.randn(4, 4)


def show(name, t):
    print(f"{name}: shape={tuple(t.shape)} dtype={t.dtype}")
    print(t)


# implicit output: indices appearing once, in alphabetical order
show("ij,jk (implicit matmul)", torch.einsum("ij,jk", a, b))
show("ba (implicit: output sorted ab, a transpose)", torch.einsum("ba", a))
show("ij (identity)", torch.einsum("ij", a))
show("ii (implicit trace)", torch.einsum("ii", sq))
show("i,i (implicit dot)", torch.einsum("i,i", v, w))
show("i,j (implicit outer)", torch.einsum("i,j", v, w))
# explicit output
show("ij->ji", torch.einsum("ij->ji", a))
show("ij->", torch.einsum("ij->", a))
show("ij->j", torch.einsum("ij->j", a))
show("ii->i (diagonal)", torch.einsum("ii->i", sq))
show("ij,jk->ik", torch.einsum("ij,jk->ik", a, b))
show("ij,jk->ki", torch.einsum("ij,jk->ki", a, b))
show("i,i->i (hadamard)", torch.einsum("i,i->i", v, w))
show("ij,ij->i (rowwise dot)", torch.einsum("ij,ij->i", a, a))
print("matches matmul:", torch.allclose(torch.einsum("ij,jk->ik", a, b), a @ b, atol=1e-6))
print("trace matches:", torch.allclose(torch.einsum("ii", sq), torch.trace(sq), atol=1e-6))
print("diag matches:", torch.equal(torch.einsum("ii->i", sq), torch.diagonal(sq)))
# spaces and list operands
show("spaces 'i j , j k -> i k'", torch.einsum("i j , j k -> i k", a, b))
show("list operand", torch.einsum("ij,jk->ik", [a, b]))

# ellipsis: batch dims broadcast
x = torch.randn(2, 3, 4)
y = torch.randn(4, 5)
show("...ij,jk->...ik", torch.einsum("...ij,jk->...ik", x, y))
show("...i->...", torch.einsum("...i->...", x))
show("i...->...", torch.einsum("i...->...", x))
show("...ii->...i batched diagonal", torch.einsum("...ii->...i", torch.randn(2, 3, 3)))
bx = torch.randn(2, 1, 3)
by = torch.randn(1, 4, 3)
show("...k,...k->... broadcast", torch.einsum("...k,...k->...", bx, by))
show("b...,b->b...", torch.einsum("b...,b->b...", x, torch.tensor([1.0, -1.0])))

# repeated index in one operand with another operand
t3 = torch.randn(3, 3, 2)
show("iij->j (trace over first two)", torch.einsum("iij->j", t3))
show("iij,j->", torch.einsum("iij,j->", t3, torch.tensor([0.5, 2.0])))
show("ii,i->i", torch.einsum("ii,i->i", sq, v))

# sublist format
show("sublist matmul", torch.einsum(a, [0, 1], b, [1, 2], [0, 2]))
show("sublist implicit", torch.einsum(a, [0, 1], b, [1, 2]))
show("sublist trace", torch.einsum(sq, [0, 0]))
show("sublist ellipsis", torch.einsum(x, [Ellipsis, 0, 1], y, [1, 2], [Ellipsis, 0, 2]))
show("sublist outer", torch.einsum(v, [0], w, [1], [1, 0]))

# bilinear forms
B, n, m = 3, 4, 5
xs = torch.randn(B, n)
ys = torch.randn(B, m)
W = torch.randn(n, m)
show("bi,ij,bj->b bilinear", torch.einsum("bi,ij,bj->b", xs, W, ys))
ref = ((xs @ W) * ys).sum(-1)
print("bilinear matches:", torch.allclose(torch.einsum("bi,ij,bj->b", xs, W, ys), ref, atol=1e-5))
Wk = torch.randn(2, n, m)
show("bi,kij,bj->bk (nn.Bilinear)", torch.einsum("bi,kij,bj->bk", xs, Wk, ys))
bil = torch.nn.Bilinear(n, m, 2, bias=False)
with torch.no_grad():
    bil.weight.copy_(Wk)
print("nn.Bilinear matches:", torch.allclose(bil(xs, ys), torch.einsum("bi,kij,bj->bk", xs, Wk, ys), atol=1e-5))
# quadratic form with a symmetric matrix
S = sq @ sq.T + torch.eye(4)
q = torch.einsum("i,ij,j->", v, S, v)
print("quadratic form:", round(q.item(), 4), "positive:", bool(q > 0))

# attention by einsum
torch.manual_seed(1)
bs, h, L, d = 2, 2, 3, 4
Q = torch.randn(bs, h, L, d, requires_grad=True)
K = torch.randn(bs, h, L, d, requires_grad=True)
V = torch.randn(bs, h, L, d, requires_grad=True)
scores = torch.einsum("bhqd,bhkd->bhqk", Q, K) / d**0.5
attn = scores.softmax(-1)
out = torch.einsum("bhqk,bhkd->bhqd", attn, V)
print("attn out", tuple(out.shape), out.grad_fn is not None)
print(out[0, 0])
ref = torch.nn.functional.scaled_dot_product_attention(Q, K, V)
print("sdpa matches:", torch.allclose(out, ref, atol=1e-5))
out.pow(2).sum().backward()
print("dQ", Q.grad[1, 1])
print("dK sum", round(K.grad.sum().item(), 4), "dV sum", round(V.grad.sum().item(), 4))

# gradients of einsum against explicit ops
p = torch.randn(3, 4, requires_grad=True)
r = torch.randn(4, 5, requires_grad=True)
torch.einsum("ij,jk->", p, r).backward()
print("grad p", p.grad)
print("grad p expected", r.sum(1).expand(3, 4))
m = torch.randn(3, 3, requires_grad=True)
torch.einsum("ii->", m).backward()
print("grad of trace", m.grad)
m.grad = None
(torch.einsum("ii->i", m) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("grad of diagonal", m.grad)
z = torch.randn(2, 3, requires_grad=True)
torch.einsum("ij,ij->", z, z).backward()
print("grad of squared norm == 2z:", torch.allclose(z.grad, 2 * z))

# integer and double einsum
ii = torch.arange(6).reshape(2, 3)
show("int64 einsum", torch.einsum("ij,kj->ik", ii, ii))
dd = torch.randn(2, 2, dtype=torch.float64)
show("float64 einsum", torch.einsum("ij,jk", dd, dd))

# errors
for eq, ops in [
    ("ij,jk->ik", (a, a)),
    ("ij->ij", (a, b)),
    ("ij,jk", (a,)),
    ("ijk->ij", (a,)),
    ("ij->k", (a,)),
    ("ij->ii", (sq,)),
    ("i,i->i", (torch.randn(3), torch.randn(4))),
]:
    try:
        torch.einsum(eq, *ops)
    except RuntimeError as e:
        print(f"einsum {eq!r}: {e}")

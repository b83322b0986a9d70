"""OpInfo-style sweep: matmul and its relatives over operand ranks (0-d to 4-d, batch broadcasting, empty
dims), dtype pairs, and the shape/dtype errors each raises."""

import math

import torch

DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64, torch.complex64]


def short(d):
    return str(d).replace("torch.", "")


def rnd(v):
    if isinstance(v, list):
        return [rnd(x) for x in v]
    if isinstance(v, complex):
        return complex(rnd(v.real), rnd(v.imag))
    if isinstance(v, float):
        return v if not math.isfinite(v) else round(v, 2) + 0.0
    return v


def show(label, fn, values=True):
    try:
        r = fn()
        print(label, "->", short(r.dtype), tuple(r.shape), rnd(r.flatten()[:6].tolist()) if values else "")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def mk(shape, dt=torch.float32):
    n = math.prod(shape)
    t = (torch.arange(n) % 5 - 1).reshape(shape)
    return t.bool() if dt == torch.bool else t.to(dt)


SHAPES = [(), (3,), (4,), (2, 3), (3, 4), (4, 3), (1, 3, 4), (2, 3, 4), (2, 4, 2), (5, 1, 4, 2), (0, 3), (3, 0),
          (2, 0, 3)]
print("== matmul over ranks")
for sa in SHAPES:
    for sb in SHAPES:
        if len(sa) == 1 and sb == (2, 0, 3):
            continue  # PyTorch folds an empty batch into mv here: docs/pytorch_compat.md (progs-v)
        show(f"matmul {sa} {sb}", lambda: torch.matmul(mk(sa), mk(sb)))
print("== mm / bmm / mv / dot / outer / addmm shapes")
PAIRS = [((2, 3), (3, 4)), ((2, 3), (4, 3)), ((3,), (3,)), ((2, 3), (3,)), ((2, 2, 3), (2, 3, 4)),
         ((2, 2, 3), (3, 3, 4)), ((0, 3), (3, 0)), ((2, 3, 4), (3, 4))]
for sa, sb in PAIRS:
    a, b = mk(sa), mk(sb)
    show(f"mm {sa} {sb}", lambda: torch.mm(a, b))
    show(f"bmm {sa} {sb}", lambda: torch.bmm(a, b))
    show(f"mv {sa} {sb}", lambda: torch.mv(a, b))
    show(f"dot {sa} {sb}", lambda: torch.dot(a, b))
    show(f"outer {sa} {sb}", lambda: torch.outer(a, b))
    show(f"inner {sa} {sb}", lambda: torch.inner(a, b))
    show(f"addmm {sa} {sb}", lambda: torch.addmm(torch.ones(1), a, b, beta=0.5, alpha=2))
print("== dtype pairs")
for d1 in DTYPES:
    for d2 in DTYPES:
        show(f"matmul {short(d1)} {short(d2)}", lambda: mk((2, 3), d1) @ mk((3, 2), d2))
for dt in DTYPES:
    show(f"mm {short(dt)}", lambda: torch.mm(mk((2, 3), dt), mk((3, 2), dt)))
    show(f"dot {short(dt)}", lambda: torch.dot(mk((3,), dt), mk((3,), dt)))
    show(f"bmm {short(dt)}", lambda: torch.bmm(mk((1, 2, 3), dt), mk((1, 3, 2), dt)))
    show(f"einsum {short(dt)}", lambda: torch.einsum("ij,jk->ik", mk((2, 3), dt), mk((3, 2), dt)))
    show(f"tensordot {short(dt)}", lambda: torch.tensordot(mk((2, 3), dt), mk((3, 2), dt), dims=1))
    show(f"kron {short(dt)}", lambda: torch.kron(mk((2,), dt), mk((2,), dt)))
    show(f"cross {short(dt)}", lambda: torch.linalg.cross(mk((3,), dt), mk((3,), dt).flip(0)))
    show(f"baddbmm {short(dt)}", lambda: torch.baddbmm(mk((1, 2, 2), dt), mk((1, 2, 3), dt), mk((1, 3, 2), dt)))
print("== einsum and tensordot errors")
a, b = mk((2, 3)), mk((3, 4))
show("einsum bad subscripts", lambda: torch.einsum("ij,jk->il", a, b))
show("einsum dim mismatch", lambda: torch.einsum("ij,ij->i", a, b))
show("einsum too few operands", lambda: torch.einsum("ij,jk->ik", a))
show("einsum ellipsis", lambda: torch.einsum("...j,jk->...k", mk((2, 2, 3)), b))
show("einsum trace", lambda: torch.einsum("ii->", mk((3, 3))))
show("einsum diag", lambda: torch.einsum("ii->i", mk((3, 3))))
show("einsum repeated output", lambda: torch.einsum("ij->ii", a))
show("tensordot dims list", lambda: torch.tensordot(mk((2, 3, 4)), mk((4, 3)), dims=([1, 2], [1, 0])))
show("tensordot mismatch", lambda: torch.tensordot(a, a, dims=([1], [0])))
show("matmul 0-d", lambda: torch.matmul(torch.tensor(2.0), a))
show("mm out wrong dtype", lambda: torch.mm(a, b, out=torch.empty(2, 4, dtype=torch.float64)))
show("matmul out", lambda: torch.matmul(a, b, out=torch.empty(0)))
show("addmv", lambda: torch.addmv(torch.zeros(2), a, torch.ones(3)))
show("addr", lambda: torch.addr(torch.zeros(2, 3), torch.ones(2), torch.ones(3)))
show("chain_matmul", lambda: torch.linalg.multi_dot([a, b, mk((4, 2))]))
show("vecdot", lambda: torch.linalg.vecdot(a, a))
show("matrix_power 0", lambda: torch.linalg.matrix_power(mk((3, 3)), 0))
show("matrix_power int", lambda: torch.linalg.matrix_power(mk((2, 2), torch.int64), 3))

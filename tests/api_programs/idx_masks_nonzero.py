"""Masks as attention, padding and data-cleaning code use them: masked_fill with broadcast masks and -inf,
masked_scatter filling positions in row-major order from a larger source, masked_select with broadcasting,
nonzero in both forms (as_tuple round-trips through indexing), torch.where with one argument, argwhere,
count_nonzero over dims, any/all per row, the in-place forms on views, gradients, and the errors for non-bool
masks and mismatched shapes."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(f"{name}:", fn())
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


# padding mask for attention: (B, T) lengths -> (B, 1, 1, T) mask, fill with -inf, softmax
lengths = torch.tensor([3, 5, 1])
T = 5
pad = torch.arange(T)[None, :] >= lengths[:, None]
print("pad mask:\n", pad)
scores = torch.randn(3, 2, 4, T)
masked = scores.masked_fill(pad[:, None, None, :], float("-inf"))
attn = masked.softmax(-1)
print("attn[0, 0]:\n", attn[0, 0])
print("attn rows sum:", attn.sum(-1).flatten()[:6])
print("padded weights all zero:", bool((attn.masked_select(pad[:, None, None, :]) == 0).all()))
causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
print("causal fill:\n", torch.zeros(4, 4).masked_fill(causal, -1e9).softmax(-1))
print("masked_fill with 0-dim tensor:", torch.arange(4.0).masked_fill(torch.tensor([True, False, True, False]),
                                                                     torch.tensor(9.5)))
print("masked_fill int with float value:", torch.arange(4).masked_fill(torch.tensor([False, True, False, True]),
                                                                       2.7))

# masked_scatter: fill True positions in order from the source (source may be bigger)
m = torch.tensor([[True, False, True], [False, True, True]])
src = torch.arange(10.0, 20.0).reshape(2, 5)
print("masked_scatter:\n", torch.zeros(2, 3).masked_scatter(m, src))
print("masked_scatter broadcast row mask:\n",
      torch.zeros(3, 3).masked_scatter(torch.tensor([True, False, True]), torch.arange(1.0, 10.0)))
ms_target = torch.zeros(2, 4)
ms_target[:, 1:3].masked_scatter_(torch.tensor([[True, True], [False, True]]), torch.tensor([7.0, 8.0, 9.0]))
print("masked_scatter_ on a view writes the base:\n", ms_target)

# masked_select with broadcasting, and as boolean indexing
x = torch.randn(4, 3)
print("x:\n", x)
print("masked_select > 0:", x.masked_select(x > 0))
print("row-broadcast mask:", x.masked_select(torch.tensor([True, False, True])))
print("same as indexing:", torch.equal(x.masked_select(x > 0), x[x > 0]))

# nonzero / argwhere / where(cond)
b = torch.tensor([[0, 3, 0], [1, 0, 0], [0, 2, 5]])
nz = b.nonzero()
print("nonzero:\n", nz, nz.dtype)
rows, cols = b.nonzero(as_tuple=True)
print("as_tuple:", rows, cols)
print("round trip:", b[rows, cols], torch.equal(b[b.nonzero(as_tuple=True)], b[b != 0]))
print("where(cond):", torch.where(b > 1))
print("argwhere:\n", torch.argwhere(b > 1))
print("argwhere of 0-dim:", torch.argwhere(torch.tensor(3)), torch.argwhere(torch.tensor(0)).shape)
print("nonzero of 0-dim as_tuple:", torch.tensor(7).nonzero(as_tuple=True))
print("nonzero 1-d as_tuple:", torch.tensor([0.0, -1.0, float("nan"), 0.0]).nonzero(as_tuple=True))
print("nonzero empty:", torch.zeros(0, 3).nonzero().shape, torch.zeros(2, 3).nonzero().shape)
print("nonzero bool 3-d:\n", (torch.arange(12).reshape(2, 3, 2) % 5 == 0).nonzero())
print("nonzero_static:", torch.nonzero_static(b, size=6, fill_value=-1).t())
print("count_nonzero:", torch.count_nonzero(b), torch.count_nonzero(b, dim=0), b.count_nonzero(dim=(0, 1)))
print("any/all rows:", (b > 0).any(dim=1), (b >= 0).all(dim=1), b.bool().any(), b.all())

# where with three arguments: scalars and promotion
print("where scalar:", torch.where(b > 0, b, -1))
print("where float/int:", torch.where(b > 0, 1.5, b))
print("where both scalars:", torch.where(b > 2, 1.0, 0.0).dtype, torch.where(b > 2, 1, 0).dtype)

# in-place masked ops on views change the base
base = torch.arange(12.0).reshape(3, 4)
base[:, ::2].masked_fill_(base[:, ::2] > 4, 0.0)
print("masked_fill_ through stepped view:\n", base)
base.t()[1].masked_fill_(torch.tensor([True, False, True]), -5.0)
print("masked_fill_ through transposed row:\n", base)

# gradients through masking
w = torch.randn(2, 3, requires_grad=True)
out = w.masked_fill(w < 0, 0.0) * 2
out.sum().backward()
print("masked_fill grad:\n", w.grad)
v = torch.randn(5, requires_grad=True)
sel = v.masked_select(torch.tensor([True, False, True, True, False]))
(sel * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("masked_select grad:", v.grad, sel.grad_fn.name())
s = torch.ones(4, requires_grad=True)
t = torch.zeros(2, 2).masked_scatter(torch.tensor([[True, False], [True, True]]), s * 3)
t.sum().backward()
print("masked_scatter grad:", s.grad)

# errors
attempt("masked_fill float mask", lambda: x.masked_fill(torch.ones(4, 3), 0.0))
attempt("masked_fill shape", lambda: x.masked_fill(torch.ones(2, 3, dtype=torch.bool), 0.0))
attempt("masked_fill 1-d tensor value", lambda: x.masked_fill(x > 0, torch.tensor([1.0])))
attempt("masked_fill_ grows self", lambda: torch.zeros(3).masked_fill_(torch.ones(2, 3, dtype=torch.bool), 1.0))
attempt("masked_select int mask", lambda: x.masked_select(torch.ones(4, 3, dtype=torch.int64)))
attempt("masked_scatter short source", lambda: torch.zeros(3).masked_scatter(torch.ones(3, dtype=torch.bool),
                                                                           torch.ones(2)))
attempt("masked_scatter dtype", lambda: torch.zeros(3).masked_scatter(torch.ones(3, dtype=torch.bool),
                                                                    torch.ones(3, dtype=torch.float64)))
attempt("bool index shape", lambda: x[torch.ones(4, 2, dtype=torch.bool)])
attempt("bool index too many dims", lambda: x[torch.ones(4, 3, 1, dtype=torch.bool)])
attempt("where cond not bool", lambda: torch.where(b, 1.0, 0.0))

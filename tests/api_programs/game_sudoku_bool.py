"""Sudoku by constraint propagation on bool tensors: a (9, 9, 9) candidate cube, peers through reshape/permute of
the boxes, naked and hidden singles with any/all/sum over dims, logical_* ops, nonzero and argmax to read off
digits, a tiny backtracking search on the most constrained cell, and a final validity check."""

import torch

PUZZLE = (
    "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
)
grid = torch.tensor([int(c) for c in PUZZLE], dtype=torch.int64).reshape(9, 9)
print("givens", (grid > 0).sum().item(), grid.dtype)


def init_cands(g):
    c = torch.ones(9, 9, 9, dtype=torch.bool)
    filled = g > 0
    oh = torch.nn.functional.one_hot((g - 1).clamp(min=0), 9).bool()
    return torch.where(filled.unsqueeze(-1), oh, c)


def boxes(c):
    """(9, 9, D) -> (9 boxes, 9 cells, D)."""
    return c.reshape(3, 3, 3, 3, -1).permute(0, 2, 1, 3, 4).reshape(9, 9, -1)


def unboxes(b):
    return b.reshape(3, 3, 3, 3, -1).permute(0, 2, 1, 3, 4).reshape(9, 9, -1)


def propagate(c):
    while True:
        before = c.clone()
        single = c.sum(-1) == 1
        digits = c & single.unsqueeze(-1)
        row_has = digits.any(1, keepdim=True)
        col_has = digits.any(0, keepdim=True)
        box_has = unboxes(boxes(digits).any(1, keepdim=True).expand(-1, 9, -1))
        elim = (row_has | col_has | box_has) & ~digits
        c = c & ~elim
        # hidden singles: a digit with one place in a row
        place = c.sum(1, keepdim=True) == 1
        hidden = c & place
        hit = hidden.any(-1, keepdim=True)
        c = torch.where(hit, hidden, c)
        if torch.equal(c, before):
            return c


def solved(c):
    return bool((c.sum(-1) == 1).all())


def contradiction(c):
    return bool((c.sum(-1) == 0).any())


def read(c):
    return (c.to(torch.uint8).argmax(-1) + 1) * (c.sum(-1) == 1)


c = propagate(init_cands(grid))
print("after propagation", int((c.sum(-1) == 1).sum()), "cells fixed; contradiction", contradiction(c))
print("candidates left", int(c.sum()), c.sum(-1).max().item())


def search(c, depth=0):
    c = propagate(c)
    if contradiction(c):
        return None, depth
    if solved(c):
        return c, depth
    counts = c.sum(-1).masked_fill(c.sum(-1) == 1, 10)
    cell = int(counts.flatten().argmin())
    r, q = divmod(cell, 9)
    for d in torch.nonzero(c[r, q]).flatten().tolist():
        trial = c.clone()
        trial[r, q] = False
        trial[r, q, d] = True
        out, dep = search(trial, depth + 1)
        if out is not None:
            return out, dep
    return None, depth


sol, depth = search(c)
s = read(sol)
print("solution row 0", s[0].tolist(), "depth", depth)
print("matches givens", bool(((grid == 0) | (grid == s)).all()))
rows_ok = (torch.sort(s, dim=1).values == torch.arange(1, 10)).all()
cols_ok = (torch.sort(s, dim=0).values == torch.arange(1, 10).unsqueeze(1)).all()
box_ok = (boxes(s.unsqueeze(-1)).squeeze(-1).sort(1).values == torch.arange(1, 10)).all()
print("valid", rows_ok.item(), cols_ok.item(), box_ok.item())
print("row sums", s.sum(1).tolist(), "trace", s.trace().item())

oh = torch.nn.functional.one_hot(s - 1, 9).bool()
print("logical_and", torch.logical_and(oh, sol).all().item(), "logical_xor", torch.logical_xor(oh, sol).sum().item())
print("logical_not dtype", torch.logical_not(grid).dtype, torch.logical_or(grid, s).all().item())
print("bool sum dtype", oh.sum().dtype, oh.sum(dim=0).dtype, oh.any(-1).all().item(), oh.all(dim=-1).any().item())
print("bool cumsum", oh[0, :, 0].cumsum(0).tolist(), oh.float().mean(dtype=torch.float64).item())
print("unique digits", torch.unique(s).tolist(), torch.bincount(s.flatten()).tolist())

bad_grid = grid.clone()
bad_grid[0, 2] = 5
bc = propagate(init_cands(bad_grid))
print("bad puzzle contradiction", contradiction(bc))

for bad in [
    lambda: torch.zeros(9, 9, 9, dtype=torch.bool).sum(-1).argmax(dim=2),
    lambda: oh.any(dim=3),
    lambda: torch.nn.functional.one_hot(torch.tensor([-1, 2]), 9),
    lambda: oh - oh,
    lambda: -oh,
    lambda: oh.reshape(3, 3, 3, 3, 8),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

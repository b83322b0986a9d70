"""Graph algorithms on bitsets packed into int64 words, as fast set-based code does: adjacency rows as
bitmasks, BFS frontiers with OR/AND-NOT, popcounts for degrees, and transitive closure by repeated
squaring with boolean matrix products."""

import torch

torch.manual_seed(3)
n = 12
adj = torch.rand(n, n) < 0.2
adj = adj & ~torch.eye(n, dtype=torch.bool)
print("edges", adj.sum().item(), adj.sum().dtype)

weights = torch.ones(n, dtype=torch.int64) << torch.arange(n)
rows = (adj.long() * weights).sum(1)
print("rows as masks", rows.tolist())
print("degrees by popcount", [bin(r).count("1") for r in rows.tolist()], adj.sum(1).tolist())


def neighbours(mask: int) -> int:
    """OR of the rows of every vertex in `mask`."""
    sel = ((mask >> torch.arange(n)) & 1).bool()
    out = 0
    for r in rows[sel].tolist():
        out |= r
    return out


seen, frontier, level = 1, 1, 0
levels = {}
while frontier:
    levels[level] = [v for v in range(n) if frontier >> v & 1]
    frontier = neighbours(frontier) & ~seen
    seen |= frontier
    level += 1
print("bfs levels", levels)
print("reachable", bin(seen), bin(seen).count("1"))

# the same reachability with tensors: frontier as a bool vector, matmul in int then > 0
f = torch.zeros(n, dtype=torch.bool)
f[0] = True
reach = f.clone()
steps = 0
while f.any():
    f = ((f.int() @ adj.int()) > 0) & ~reach
    reach |= f
    steps += 1
print("tensor bfs", reach.nonzero().flatten().tolist(), "steps", steps)
try:
    f.float() @ adj
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    adj @ adj
except RuntimeError as e:
    print(type(e).__name__, e)

closure = adj | torch.eye(n, dtype=torch.bool)
for _ in range(4):
    closure = (closure.to(torch.uint8) @ closure.to(torch.uint8)) > 0
print("closure row 0", closure[0].nonzero().flatten().tolist(), "pairs", closure.sum().item())
print(
    "uint8 matmul wraps",
    (torch.full((1, 300), 1, dtype=torch.uint8) @ torch.full((300, 1), 1, dtype=torch.uint8)).item(),
)
print(
    "int16 matmul", (torch.full((1, 300), 200, dtype=torch.int16) @ torch.full((300, 1), 1, dtype=torch.int16)).item()
)

sym = adj | adj.t()
tri = ((sym.long() @ sym.long()) * sym.long()).sum() // 6
print("triangles", tri.item(), tri.dtype)
common = rows[:, None] & rows[None, :]
cnt = torch.zeros_like(common)
for b in range(n):
    cnt += (common >> b) & 1
print("common neighbours", cnt[0].tolist(), torch.equal(cnt, adj.long() @ adj.long().t()))
jac_num, jac_den = cnt, torch.zeros_like(common)
union = rows[:, None] | rows[None, :]
for b in range(n):
    jac_den += (union >> b) & 1
jac = torch.where(jac_den > 0, jac_num / jac_den.clamp(min=1), torch.zeros(()))
print("jaccard", jac[0].round(decimals=3).tolist(), jac.dtype)
print("xor distance", ((rows[:, None] ^ rows[None, :]) == 0).sum().item())
print("any/all over masks", bool((rows == 0).any()), bool((rows >= 0).all()), rows.max().item() < (1 << n))

"""Cellular automata on tensors: Conway's Life on a torus by circular padding and a 3x3 conv, the same step through
nn.Conv2d(padding_mode='circular') and through roll, HighLife and Life-like rules from B/S masks with isin, an
elementary automaton (rule 110) with conv1d and bit lookup, a Larger-than-Life neighbourhood, Langton's ant, and
population statistics of random soups."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
K = torch.ones(1, 1, 3, 3)
K[0, 0, 1, 1] = 0


def neighbours(grid):
    """grid: (B, H, W) uint8/bool -> (B, H, W) float neighbour counts on a torus."""
    x = grid.float().unsqueeze(1)
    return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), K).squeeze(1)


def step(grid, born=(3,), survive=(2, 3)):
    n = neighbours(grid).long()
    b, s = torch.tensor(born), torch.tensor(survive)
    return torch.where(grid.bool(), torch.isin(n, s), torch.isin(n, b))


# a glider returns to its shape shifted by (1, 1) after four generations
g = torch.zeros(1, 8, 8, dtype=torch.bool)
g[0, 0, 1] = g[0, 1, 2] = g[0, 2, 0] = g[0, 2, 1] = g[0, 2, 2] = True
x = g
for _ in range(4):
    x = step(x)
print("glider shift", torch.equal(x, g.roll((1, 1), dims=(1, 2))), x.sum().item(), x.dtype)
print(x[0].to(torch.uint8)[:5, :5])

# three formulations of the same step agree
conv = nn.Conv2d(1, 1, 3, padding=1, padding_mode="circular", bias=False)
with torch.no_grad():
    conv.weight.copy_(K)
print(conv)
soup = torch.rand(4, 16, 16) < 0.35
n1 = neighbours(soup)
n2 = conv(soup.float().unsqueeze(1)).squeeze(1).detach()
n3 = sum(soup.roll((dy, dx), dims=(1, 2)).float() for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
print("conv == module == roll", torch.equal(n1, n2), torch.equal(n1, n3), n1.max().item())

pop = []
life = soup
for t in range(30):
    life = step(life)
    pop.append(life.sum(dim=(1, 2)))
pop = torch.stack(pop)
print("population", pop[-1].tolist(), pop.float().mean(0).round(decimals=2).tolist())
print("min/max per soup", pop.amin(0).tolist(), pop.amax(0).tolist())
hl = soup
for _ in range(30):
    hl = step(hl, born=(3, 6), survive=(2, 3))
print("highlife", hl.sum(dim=(1, 2)).tolist(), "differs", (hl != life).any().item())

# a blinker oscillates with period two
blk = torch.zeros(1, 5, 5, dtype=torch.bool)
blk[0, 2, 1:4] = True
print("blinker", torch.equal(step(step(blk)), blk), torch.equal(step(blk), blk.transpose(1, 2)))

# rule 110: neighbourhood code 4*l + 2*c + r via conv1d, looked up in the rule's bits
rule = 110
table = torch.tensor([(rule >> i) & 1 for i in range(8)], dtype=torch.uint8)
row = torch.zeros(1, 1, 64)
row[0, 0, -1] = 1
w = torch.tensor([[[4.0, 2.0, 1.0]]])
hist = [row[0, 0].to(torch.uint8)]
for _ in range(31):
    code = F.conv1d(F.pad(row, (1, 1), mode="circular"), w).long()
    row = table[code].float()
    hist.append(row[0, 0].to(torch.uint8))
hist = torch.stack(hist)
print("rule110 live", hist.sum().item(), hist.sum(1)[:10].tolist(), hist.dtype)
print("".join("#" if v else "." for v in hist[10, 40:].tolist()))

# Larger than Life: radius-2 box neighbourhood via avg_pool2d * area
r = 2
box = F.avg_pool2d(F.pad(soup.float().unsqueeze(1), (r, r, r, r), mode="circular"), 2 * r + 1, stride=1)
counts = (box * (2 * r + 1) ** 2).round().squeeze(1) - soup.float()
ltl = torch.where(soup, (counts >= 5) & (counts <= 12), (counts >= 7) & (counts <= 9))
print("larger than life", counts.shape, counts.max().item(), ltl.sum(dim=(1, 2)).tolist())

# Langton's ant: a state machine on a bool grid
grid = torch.zeros(11, 11, dtype=torch.bool)
pos = torch.tensor([5, 5])
dirs = torch.tensor([[-1, 0], [0, 1], [1, 0], [0, -1]])
d = 0
for _ in range(200):
    cell = grid[pos[0], pos[1]]
    d = (d + (1 if not cell else -1)) % 4
    grid[pos[0], pos[1]] = ~cell
    pos = torch.remainder(pos + dirs[d], 11)
print("ant", grid.sum().item(), pos.tolist(), d, grid.nonzero().float().mean(0).round(decimals=4).tolist())

for bad in [
    lambda: F.pad(soup.float(), (17, 17), mode="circular"),
    lambda: F.conv2d(soup.unsqueeze(1), K),
    lambda: nn.Conv2d(1, 1, 3, padding="same", stride=2),
    lambda: torch.isin(torch.tensor([1, 2]), torch.tensor([1.5]), assume_unique=True) + torch.isin(1, 2),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

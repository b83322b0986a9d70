"""Go rules on a 9x9 board as tensor code: groups by iterated masked dilation (max_pool2d), liberties by a 4-neighbour
conv, captures and suicide checks, a simple ko, legal-move masks over the whole board at once, area scoring by
flood-filling empty regions, and the tensor reprs of small boards."""

import torch
import torch.nn.functional as F

N = 9
CROSS = torch.tensor([[0.0, 1, 0], [1, 0, 1], [0, 1, 0]]).view(1, 1, 3, 3)
PLUS = CROSS.clone()
PLUS[0, 0, 1, 1] = 1


def dilate(mask):
    """4-connected dilation of a (H, W) bool mask."""
    return F.conv2d(mask.float()[None, None], PLUS, padding=1)[0, 0] > 0


def group_of(stones, r, c):
    g = torch.zeros_like(stones)
    g[r, c] = True
    while True:
        ng = dilate(g) & stones
        if torch.equal(ng, g):
            return g
        g = ng


def liberties(group, empty):
    return (dilate(group) & empty & ~group).sum().item()


def play(board, r, c, colour):
    """board: int8 (N, N) with 1 black, -1 white, 0 empty. Returns (new board, captured) or raises ValueError."""
    if board[r, c] != 0:
        raise ValueError("occupied")
    b = board.clone()
    b[r, c] = colour
    captured = 0
    for dr, dc in [(-1, 0), (1, 0), (0, -1), (0, 1)]:
        rr, cc = r + dr, c + dc
        if 0 <= rr < N and 0 <= cc < N and b[rr, cc] == -colour:
            g = group_of(b == -colour, rr, cc)
            if liberties(g, b == 0) == 0:
                captured += int(g.sum())
                b[g] = 0
    if liberties(group_of(b == colour, r, c), b == 0) == 0:
        raise ValueError("suicide")
    return b, captured


board = torch.zeros(N, N, dtype=torch.int8)
moves = [(2, 2, 1), (2, 3, -1), (3, 3, 1), (1, 3, 1), (6, 6, -1), (2, 4, 1), (4, 4, -1), (3, 2, 1)]
total = {1: 0, -1: 0}
for r, c, col in moves:
    board, cap = play(board, r, c, col)
    total[col] += cap
print("captures", total, "stones", (board == 1).sum().item(), (board == -1).sum().item())
print(board[:5, :6])

# liberties of every stone's group at once: label groups by propagating the max index
idx = torch.arange(1, N * N + 1, dtype=torch.float32).view(N, N)
for colour in (1, -1):
    stones = board == colour
    lab = torch.where(stones, idx, torch.zeros(()))
    for _ in range(N * N):
        nxt = F.max_pool2d(lab[None, None], 3, stride=1, padding=1)[0, 0]
        # restrict to 4-neighbourhood: the 3x3 max includes diagonals, so mask with a cross conv of equality
        cross = torch.stack([lab.roll(s, d) for s, d in [(1, 0), (-1, 0), (1, 1), (-1, 1)]]).amax(0)
        nxt = torch.where(stones, torch.maximum(lab, cross), torch.zeros(()))
        if torch.equal(nxt, lab):
            break
        lab = nxt
    groups = lab[stones].unique()
    print("colour", colour, "groups", groups.numel(), "sizes", [(lab == gid).sum().item() for gid in groups.tolist()])

# legal-move mask for black: empty points that are not suicide (checked exhaustively)
legal = torch.zeros(N, N, dtype=torch.bool)
for r, c in (board == 0).nonzero().tolist():
    try:
        play(board, r, c, 1)
        legal[r, c] = True
    except ValueError:
        pass
print("legal for black", legal.sum().item(), "of", (board == 0).sum().item())

# a ko: white captures one stone; black's immediate retake would repeat the earlier position
N_saved, N = N, 5
ko = torch.zeros(5, 5, dtype=torch.int8)
for r, c, col in [(0, 1, 1), (1, 0, 1), (2, 1, 1), (1, 2, 1), (0, 2, -1), (2, 2, -1), (1, 3, -1)]:
    ko[r, c] = col
before = ko.clone()
after_w, cap_w = play(ko, 1, 1, -1)
after_b, cap_b = play(after_w, 1, 2, 1)
print("ko", cap_w, cap_b, "repeats", torch.equal(after_b, before), after_w.view(-1)[5:10].tolist())
N = N_saved

# area scoring: empty regions reached only by one colour
empty = board == 0
reach_b = board == 1
reach_w = board == -1
for _ in range(2 * N):
    reach_b = reach_b | (dilate(reach_b) & empty)
    reach_w = reach_w | (dilate(reach_w) & empty)
black_area = (board == 1) | (reach_b & ~reach_w & empty)
white_area = (board == -1) | (reach_w & ~reach_b & empty)
print("area", black_area.sum().item(), white_area.sum().item(), "dame", (empty & reach_b & reach_w).sum().item())
print("komi result", black_area.sum().item() - white_area.sum().item() - 7.5)
print("neighbour counts", F.conv2d((board == 1).float()[None, None], CROSS, padding=1)[0, 0, 1:4, 1:5].tolist())

for bad in [
    lambda: play(board, 2, 2, -1),
    lambda: F.max_pool2d((board == 1)[None, None], 3, stride=1, padding=1),
    lambda: F.max_pool2d(board.float()[None, None], 3, stride=1, padding=2),
    lambda: board.roll((1, 1), 0),
    lambda: torch.zeros(3, 3, dtype=torch.int8)[torch.ones(3, 3)],
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

"""Connect-4 on board planes: win detection with four conv2d line kernels and with unfold windows, legal-move masks
from the top row, gravity drops through cumsum/argmax, a batched random rollout, and the misuse PyTorch rejects."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
ROWS, COLS = 6, 7

# the four line detectors (horizontal, vertical, two diagonals) stacked as one conv weight
k = torch.zeros(4, 1, 4, 4)
k[0, 0, 0, :] = 1
k[1, 0, :, 0] = 1
k[2, 0] = torch.eye(4)
k[3, 0] = torch.eye(4).flip(-1)
print("kernels", k.shape, k.sum(dim=(1, 2, 3)).tolist())


def wins(planes):
    """planes: (B, 2, 6, 7) float; returns (B, 2) bool -- who has four in a row."""
    b = planes.shape[0]
    x = planes.reshape(b * 2, 1, ROWS, COLS)
    hits = F.conv2d(F.pad(x, (0, 3, 0, 3)), k)
    return (hits.amax(dim=(1, 2, 3)) >= 4).reshape(b, 2)


def legal(planes):
    return planes.sum(1)[:, 0, :] == 0


def drop(planes, col, player):
    """Gravity: the piece lands on the lowest empty row of each board's chosen column."""
    occ = planes.sum(1)  # (B, 6, 7)
    colocc = occ[torch.arange(planes.shape[0]), :, col]  # (B, 6)
    empty = colocc == 0
    row = (empty.long().cumsum(1) * empty).argmax(1)
    out = planes.clone()
    out[torch.arange(planes.shape[0]), player, row, col] = 1.0
    return out, row


boards = torch.zeros(3, 2, ROWS, COLS)
boards[0, 0, 5, 1:5] = 1  # horizontal win for player 0
boards[1, 1, 2:6, 3] = 1  # vertical win for player 1
for i in range(4):
    boards[2, 0, 5 - i, i + 2] = 1  # anti-diagonal
boards[2, 1, 0, :] = 1  # full top row for board 2 except we clear one
boards[2, 1, 0, 6] = 0
print("wins", wins(boards).tolist())
print("legal", legal(boards).int().tolist())
print("legal count", legal(boards).sum(1).tolist(), legal(boards).dtype)

# unfold-based check gives the same answer for horizontals
patches = F.unfold(boards[:, 0:1], kernel_size=(1, 4))
print("unfold", patches.shape, (patches.sum(1) == 4).any(1).tolist())
u = boards[:, 0].unfold(2, 4, 1)
print("Tensor.unfold", u.shape, u.stride(), (u.sum(-1) == 4).flatten(1).any(1).tolist())

# batched random rollout with masked sampling
b = torch.zeros(5, 2, ROWS, COLS)
done = torch.zeros(5, dtype=torch.bool)
winner = torch.full((5,), -1, dtype=torch.long)
moves = torch.zeros(5, dtype=torch.long)
for t in range(42):
    p = t % 2
    mask = legal(b) & ~done[:, None]
    active = mask.any(1)
    if not active.any():
        break
    logits = torch.zeros(5, COLS).masked_fill(~mask, float("-inf"))
    probs = torch.where(active[:, None], logits.softmax(-1), torch.full_like(logits, 1.0 / COLS))
    col = torch.multinomial(probs, 1).squeeze(1)
    nb, row = drop(b, col, p)
    b = torch.where(active[:, None, None, None], nb, b)
    moves += active.long()
    w = wins(b)[:, p] & active & ~done
    winner[w] = p
    done |= w | ~legal(b).any(1)
print("moves", moves.tolist(), "winner", winner.tolist(), "done", done.all().item())
print("pieces", b.sum(dim=(2, 3)).long().tolist())
print("heights", b.sum(1).sum(1).long().tolist()[0])
stones = b.sum(1).sum(1)
print("column fullness", (stones == ROWS).sum(1).tolist(), stones.max().item())
print("nonzero winners", torch.nonzero(winner >= 0).flatten().tolist())
print("count_nonzero", torch.count_nonzero(b, dim=(1, 2, 3)).tolist())

# a boolean-board variant with logical ops and conv on a bool-cast view
own = b[:, 0].bool()
opp = b[:, 1].bool()
print("overlap", (own & opp).any().item(), "xor full", (own ^ opp).sum().item(), "or", (own | opp).sum().item())
print("threats", F.conv2d(F.pad(own.float().unsqueeze(1), (0, 3, 0, 3)), k).eq(3).sum().item())

for bad in [
    lambda: F.conv2d(boards, k),
    lambda: torch.zeros(2, 7).masked_fill(torch.ones(2, 7), 0.0),
    lambda: torch.multinomial(torch.zeros(2, 7), 1),
    lambda: F.unfold(boards[0], kernel_size=(1, 8)),
    lambda: boards[:, 0].unfold(2, 8, 1),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

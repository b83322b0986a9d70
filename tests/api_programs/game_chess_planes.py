"""Chess board encodings as Leela/AlphaZero inputs build them: FEN parsed into 12 piece planes with index_put_,
bitboards as int64 with shifts and masks, knight and king attack maps by conv2d with fixed kernels, sliding-piece
rays with cumprod blocking, the side-to-move flip of planes, material counts by einsum, and printed boards."""

import torch
import torch.nn.functional as F

FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
PIECES = "PNBRQKpnbrqk"
VALUES = torch.tensor([1, 3, 3, 5, 9, 0], dtype=torch.float32)


def parse(fen):
    board, side = fen.split()[:2]
    rows, cols, kinds = [], [], []
    for r, rank in enumerate(board.split("/")):
        c = 0
        for ch in rank:
            if ch.isdigit():
                c += int(ch)
            else:
                rows.append(r)
                cols.append(c)
                kinds.append(PIECES.index(ch))
                c += 1
    planes = torch.zeros(12, 8, 8)
    planes.index_put_((torch.tensor(kinds), torch.tensor(rows), torch.tensor(cols)), torch.tensor(1.0))
    return planes, side


planes, side = parse(FEN)
print("planes", planes.shape, planes.sum().item(), "side", side)
print("per type", planes.sum(dim=(1, 2)).long().tolist())
occ = planes.sum(0).to(torch.int8)
print(occ)

# material by einsum over (colour, kind)
mat = torch.einsum("ckhw,k->c", planes.view(2, 6, 8, 8), VALUES)
print("material", mat.tolist(), "balance", (mat[0] - mat[1]).item())

# bitboards: square index 8*r + c, OR-reduced from one-hot bits
bits = torch.ones(64, dtype=torch.int64) << torch.arange(64)
bitboards = (planes.flatten(1).long() * bits).sum(1)
print("white pawns bb", bitboards[0].item(), hex(bitboards[0].item() & 0xFFFFFFFFFFFFFFFF))
back = ((bitboards.unsqueeze(1) >> torch.arange(64)) & 1).reshape(12, 8, 8).float()
print("bitboard round trip", torch.equal(back, planes))
print("popcount", ((bitboards.unsqueeze(1) >> torch.arange(64)) & 1).sum(1).tolist())
print("shift north", (bitboards[0] >> 8).item(), "xor", (bitboards[0] ^ bitboards[6]).item() != 0)
print("sign bit", (torch.tensor([1]) << 63).item(), torch.tensor([-2]).bitwise_right_shift(1).item())

# knight and king attacks by conv2d with fixed kernels
knight_k = torch.zeros(1, 1, 5, 5)
for dr, dc in [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]:
    knight_k[0, 0, 2 + dr, 2 + dc] = 1
king_k = torch.ones(1, 1, 3, 3)
king_k[0, 0, 1, 1] = 0
wn = planes[1:2].unsqueeze(0)
kn_att = F.conv2d(wn, knight_k, padding=2)[0, 0]
print("knight attacks", int((kn_att > 0).sum()), kn_att.max().item())
wk_att = F.conv2d(planes[5:6].unsqueeze(0), king_k, padding=1)[0, 0] > 0
print("king zone", wk_att.nonzero().tolist())

# sliding rays: along a direction, squares up to and including the first blocker
occb = planes.sum(0) > 0


def ray(sq_r, sq_c, dr, dc):
    steps = torch.arange(1, 8)
    rr, cc = sq_r + dr * steps, sq_c + dc * steps
    on = (rr >= 0) & (rr < 8) & (cc >= 0) & (cc < 8)
    rr, cc = rr[on], cc[on]
    blocked = occb[rr, cc].long()
    free_before = torch.cumprod(1 - F.pad(blocked, (1, 0))[:-1], 0)
    return torch.stack([rr, cc], 1)[free_before.bool()]


bishop = (planes[2].nonzero()[1]).tolist()
print("bishop at", bishop)
att = torch.cat([ray(*bishop, dr, dc) for dr, dc in [(1, 1), (1, -1), (-1, 1), (-1, -1)]])
print("bishop attacks", att.tolist())
print("attacks black pieces", planes[6:].sum(0)[att[:, 0], att[:, 1]].sum().item())

# side to move: flip ranks and swap colours so the network always sees "own" first
flipped = torch.cat([planes[6:], planes[:6]]).flip(1)
print("flip keeps material", flipped.sum().item(), torch.equal(flipped.flip(1)[6:], planes[:6]))
full = torch.cat([planes, torch.ones(1, 8, 8) * (side == "w"), torch.full((1, 8, 8), 4 / 100)])
print("input stack", full.shape, full[-2:].mean(dim=(1, 2)).tolist())

# legal pawn pushes as bool ops on shifted planes
wp = planes[0] > 0
empty = ~occb
push1 = F.pad(wp[1:], (0, 0, 0, 1)) & empty
rank3 = torch.zeros(8, 8, dtype=torch.bool)
rank3[5] = True
push2 = F.pad((push1 & rank3)[1:], (0, 0, 0, 1)) & empty
print("single pushes", push1.sum().item(), "double", push2.sum().item())
print(push2.to(torch.uint8)[2:6])

for bad in [
    lambda: planes.index_put_((torch.tensor([0]), torch.tensor([8]), torch.tensor([0])), torch.tensor(1.0)),
    lambda: torch.einsum("ckhw,k->c", planes.view(2, 6, 8, 8), VALUES[:5]),
    lambda: torch.tensor([1.5]) << 2,
    lambda: planes.view(2, 6, 8, 7),
    lambda: torch.cumprod(occb, 0, dtype=torch.bool).sum() + torch.cumprod(occb.long(), 2),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

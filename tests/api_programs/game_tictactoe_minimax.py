"""Solving tic-tac-toe by retrograde analysis over a value table: every board encoded base 3 as an index, legal
successors by broadcasting, terminal detection with a line-index gather, minimax backups by masked amax/amin until a
fixed point, alpha-beta search counting nodes against the table, and a value network distilled from the table."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LINES = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]])
POW3 = 3 ** torch.arange(9)
S = 3 ** 9

# every assignment of {0 empty, 1 X, 2 O} to the nine squares
boards = (torch.arange(S).unsqueeze(1) // POW3) % 3
nx, no = (boards == 1).sum(1), (boards == 2).sum(1)
reachable_counts = (nx == no) | (nx == no + 1)
line_vals = boards[:, LINES]  # (S, 8, 3)
x_win = (line_vals == 1).all(-1).any(-1)
o_win = (line_vals == 2).all(-1).any(-1)
valid = reachable_counts & ~(x_win & o_win) & ~(x_win & (nx == no)) & ~(o_win & (nx > no))
full = (boards != 0).all(1)
terminal = valid & (x_win | o_win | full)
x_to_move = nx == no
print("states", S, "valid", valid.sum().item(), "terminal", terminal.sum().item(),
      "x wins", (valid & x_win).sum().item(), "o wins", (valid & o_win).sum().item(), "draws",
      (valid & full & ~x_win & ~o_win).sum().item())

# successors: placing the mover's mark on each empty square adds mark * 3**square
mark = torch.where(x_to_move, 1, 2)
succ = torch.arange(S).unsqueeze(1) + mark.unsqueeze(1) * POW3
legal = (boards == 0) & valid.unsqueeze(1) & ~terminal.unsqueeze(1)
succ = torch.where(legal, succ, torch.zeros_like(succ))
print("succ", succ.shape, succ.dtype, "moves from empty", legal[0].sum().item(), "max index", succ.max().item())

value = torch.zeros(S)
value[x_win] = 1.0
value[o_win] = -1.0
known = terminal.clone()
for sweep in range(10):
    child = value[succ]
    child_known = known[succ] | ~legal
    best_x = child.masked_fill(~legal, float("-inf")).amax(1)
    best_o = child.masked_fill(~legal, float("inf")).amin(1)
    ready = valid & ~known & child_known.all(1)
    value = torch.where(ready, torch.where(x_to_move, best_x, best_o), value)
    known = known | ready
    if ready.sum() == 0:
        break
print("sweeps", sweep, "solved", (known & valid).sum().item() == valid.sum().item(), "root value", value[0].item())
print("first move values", value[succ[0]].view(3, 3).tolist())
print("value histogram", torch.bincount((value[valid] + 1).long(), minlength=3).tolist())

# optimal policy from the table and a perfect self-play game
pos = 0
game = []
while not terminal[pos]:
    vals = value[succ[pos]].masked_fill(~legal[pos], float("-inf") if x_to_move[pos] else float("inf"))
    a = int(vals.argmax() if x_to_move[pos] else vals.argmin())
    game.append(a)
    pos = int(succ[pos, a])
print("perfect game", game, "result", value[pos].item())
print(boards[pos].view(3, 3))

# alpha-beta over the same successor table, counting nodes
count = [0]


def alphabeta(s, alpha, beta):
    count[0] += 1
    if terminal[s]:
        return value[s].item()
    moves = succ[s][legal[s]].tolist()
    if x_to_move[s]:
        v = -2.0
        for m in moves:
            v = max(v, alphabeta(m, alpha, beta))
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return v
    v = 2.0
    for m in moves:
        v = min(v, alphabeta(m, alpha, beta))
        beta = min(beta, v)
        if alpha >= beta:
            break
    return v


mid = int((torch.tensor([1, 2, 0, 0, 1, 0, 0, 0, 0]) * POW3).sum())
print("alpha-beta", alphabeta(mid, -2.0, 2.0), "table", value[mid].item(), "nodes", count[0])

# distil the table into a small value network (one-hot planes)
idx = torch.nonzero(valid & ~terminal).squeeze(1)
planes = F.one_hot(boards[idx], 3).permute(0, 2, 1).float().flatten(1)
planes = torch.cat([planes, x_to_move[idx].float().unsqueeze(1)], 1)
target = value[idx]
net = nn.Sequential(nn.Linear(28, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh())
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for epoch in range(60):
    pred = net(planes).squeeze(1)
    loss = F.mse_loss(pred, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
acc = (pred.detach().sign() == target.sign()).float().mean()
print("distil", planes.shape, round(loss.item(), 2) < 0.5, "sign acc > 0.6", acc.item() > 0.6)

for bad in [
    lambda: value[torch.tensor([S])],
    lambda: boards[:, LINES.float()],
    lambda: value.masked_fill(legal, 0.0),
    lambda: torch.zeros(3).amax(dim=()) + torch.zeros(0).amax(),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

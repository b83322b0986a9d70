"""Batched game evaluation with torch.func as JAX-style game code writes it: a per-board win detector and legal mask
vmapped over a batch, a functional policy network evaluated with functional_call, per-sample REINFORCE gradients
through vmap(grad(...)), input saliency by jacrev, sampling inside vmap with randomness='different', and the
refusals PyTorch gives for random draws and data-dependent control flow under vmap."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, jacrev, vmap

torch.manual_seed(0)
ROWS, COLS = 4, 5
K = torch.zeros(4, 1, 3, 3)
K[0, 0, 1, :] = 1
K[1, 0, :, 1] = 1
K[2, 0] = torch.eye(3)
K[3, 0] = torch.eye(3).flip(1)


def wins_one(plane):
    """plane: (ROWS, COLS) -> scalar bool, three in a row for this player."""
    hits = F.conv2d(plane[None, None], K, padding=1)
    return (hits >= 3).any()


def legal_one(board):
    return board.sum(0)[0] == 0


boards = (torch.rand(6, 2, ROWS, COLS) < 0.3).float()
boards[:, 1] *= 1 - boards[:, 0]
w = vmap(vmap(wins_one))(boards)
print("wins", w.tolist(), w.dtype)
print("loop agrees", torch.equal(w, torch.stack([torch.stack([wins_one(b[p]) for p in range(2)]) for b in boards])))
legal = vmap(legal_one)(boards)
print("legal", legal.int().tolist()[:2], legal.sum(1).tolist())


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 8, 3, padding=1)
        self.head = nn.Linear(8 * ROWS * COLS, COLS)
        self.value = nn.Linear(8 * ROWS * COLS, 1)

    def forward(self, x):
        h = F.relu(self.conv(x)).flatten(1)
        return self.head(h), torch.tanh(self.value(h)).squeeze(-1)


net = Policy()
params = {k: v.detach() for k, v in net.named_parameters()}
buffers = dict(net.named_buffers())


def masked_log_probs(p, board, mask):
    logits, v = functional_call(net, (p, buffers), (board[None],))
    return logits[0].masked_fill(~mask, float("-inf")).log_softmax(-1), v[0]


logp, v = vmap(masked_log_probs, in_dims=(None, 0, 0))(params, boards, legal)
print("log-probs", logp.shape, torch.isinf(logp).sum().item(), (~legal).sum().item())
print("probs sum", logp.exp().sum(-1).round(decimals=4).tolist(), "values", v.shape)

actions = torch.stack([torch.nonzero(m).flatten()[0] for m in legal])
returns = torch.tensor([1.0, -1.0, 0.0, 1.0, 1.0, -1.0])


def reinforce_loss(p, board, mask, a, ret):
    lp, val = masked_log_probs(p, board, mask)
    adv = ret - val.detach()
    return -(lp.gather(0, a.unsqueeze(0)).squeeze(0) * adv) + 0.5 * (val - ret) ** 2


per_sample = vmap(grad(reinforce_loss), in_dims=(None, 0, 0, 0, 0))(params, boards, legal, actions, returns)
print("per-sample grads", {k: tuple(g.shape) for k, g in per_sample.items()})
mean_grad = {k: g.mean(0) for k, g in per_sample.items()}
g_head, loss_v = grad_and_value(lambda p: sum(reinforce_loss(p, b, m, a, r) for b, m, a, r in
                                               zip(boards, legal, actions, returns)) / 6)(params)
print("mean of per-sample == batch grad", torch.allclose(mean_grad["head.weight"], g_head["head.weight"], atol=1e-6),
      round(loss_v.item(), 4))

# saliency: d value / d input planes for one board
sal = jacrev(lambda x: functional_call(net, (params, buffers), (x[None],))[1][0])(boards[0])
print("saliency", sal.shape, round(sal.abs().sum().item(), 4))

# sampling inside vmap needs a randomness mode
sample = vmap(lambda lp: torch.multinomial(lp.exp(), 1), randomness="different")(logp)
print("sampled legal", legal.gather(1, sample).all().item(), sample.shape)
noise = vmap(lambda b: b + torch.rand(ROWS, COLS) * 0, randomness="same")(boards[:, 0])
print("same-noise zero", torch.equal(noise, boards[:, 0]))

for bad in [
    lambda: vmap(lambda lp: torch.multinomial(lp.exp(), 1))(logp),
    lambda: vmap(lambda lp: torch.multinomial(lp.exp(), 1), randomness="same")(logp),
    lambda: vmap(lambda b: b if wins_one(b[0]) else -b)(boards),
    lambda: vmap(lambda b: b.sum().item())(boards),
    lambda: vmap(lambda m: torch.nonzero(m))(legal),
    lambda: vmap(wins_one, in_dims=1)(boards[:, 0]),
    lambda: vmap(lambda x: x, randomness="sometimes")(boards),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

"""Monotonic alignment search (Glow-TTS / VITS) written as a dynamic program over tensors: the log-likelihood
matrix from a diagonal Gaussian, a batched forward pass with shifted maxima and -inf padding, backtracking into a
hard path, durations by summing it, and the checks that the path is monotonic and covers each frame once."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False)


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


def gaussian_logp(z, m, logs):
    # z: [b, d, t_y], m/logs: [b, d, t_x] -> [b, t_x, t_y]
    s_p_sq_r = torch.exp(-2 * logs)
    neg_cent1 = torch.sum(-0.5 * math.log(2 * math.pi) - logs, [1], keepdim=True).transpose(1, 2)
    neg_cent2 = torch.matmul(-0.5 * (z**2).transpose(1, 2), s_p_sq_r).transpose(1, 2)
    neg_cent3 = torch.matmul(z.transpose(1, 2), (m * s_p_sq_r)).transpose(1, 2)
    neg_cent4 = torch.sum(-0.5 * (m**2) * s_p_sq_r, [1], keepdim=True).transpose(1, 2)
    return neg_cent1 + neg_cent2 + neg_cent3 + neg_cent4


@torch.no_grad()
def maximum_path(value, mask, max_neg_val=-1e9):
    b, t_x, t_y = value.shape
    value = value.masked_fill(~mask, max_neg_val)
    direction = torch.zeros(value.shape, dtype=torch.int64)
    v = torch.zeros((b, t_x), dtype=value.dtype)
    x_range = torch.arange(t_x, dtype=torch.float32).view(1, -1)
    for j in range(t_y):
        v0 = F.pad(v, [1, 0, 0, 0], mode="constant", value=max_neg_val)[:, :-1]
        v1 = v
        max_mask = v1 >= v0
        v_max = torch.where(max_mask, v1, v0)
        direction[:, :, j] = max_mask
        index_mask = x_range <= j
        v = torch.where(index_mask, v_max + value[:, :, j], torch.tensor(max_neg_val, dtype=value.dtype))
    direction = torch.where(mask, direction, torch.tensor(1))
    path = torch.zeros(value.shape, dtype=torch.float32)
    x_len = mask[:, :, 0].sum(1)
    y_len = mask[:, 0, :].sum(1)
    index = x_len - 1
    for j in reversed(range(t_y)):
        active = j < y_len
        path[torch.arange(b)[active], index[active], j] = 1
        index = index + (direction[torch.arange(b), index, j] - 1) * active.long()
    return path * mask


x_lens, y_lens = torch.tensor([4, 3]), torch.tensor([9, 6])
t_x, t_y, d = 4, 9, 3
m = torch.randn(2, d, t_x)
logs = torch.randn(2, d, t_x) * 0.1
z = torch.randn(2, d, t_y)
x_mask = sequence_mask(x_lens, t_x).unsqueeze(1).float()
y_mask = sequence_mask(y_lens, t_y).unsqueeze(1).float()
attn_mask = torch.unsqueeze(x_mask, -1) * torch.unsqueeze(y_mask, 2)
print(attn_mask.shape, attn_mask.dtype, attn_mask.sum((2, 3)).squeeze(1))
logp = gaussian_logp(z, m, logs)
print(logp.shape, logp[0, :, :3].round(decimals=3))
path = maximum_path(logp, attn_mask.squeeze(1).bool())
print(path[0].int())
print(path[1].int())
dur = path.sum(2)
print("durations", dur, dur.sum(1), y_lens)
print("one per frame", torch.equal(path.sum(1), y_mask.squeeze(1)))
first = path.argmax(1)
print("monotonic", bool((first[:, 1:] >= first[:, :-1]).logical_or(~y_mask.squeeze(1)[:, 1:].bool()).all()))
print("log durations", (torch.log(1e-8 + dur) * x_mask.squeeze(1)).round(decimals=3))
m_exp = torch.matmul(path.transpose(1, 2), m.transpose(1, 2)).transpose(1, 2)
print(m_exp.shape, torch.allclose(m_exp[0, :, 0], m[0, :, 0]))

# The same DP on float64 and with a tie.
tie = torch.zeros(1, 2, 3, dtype=torch.float64)
print(maximum_path(tie, torch.ones(1, 2, 3, dtype=torch.bool)))
print(F.pad(torch.arange(6.0).view(2, 3), [1, 0, 0, 0], value=-1e9)[:, :-1])
print(torch.where(torch.tensor([True, False]), torch.tensor([1.5, 2.5]), torch.tensor(-1e9, dtype=torch.float64)))
print(torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), 0.5).dtype)
try:
    torch.where(torch.tensor([1, 0]), torch.ones(2), torch.zeros(2))
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.zeros(2, 3, dtype=torch.int64).index_put_((torch.tensor([0, 1]), torch.tensor([2, 0])), torch.tensor(7)))
try:
    path[torch.tensor([0]), torch.tensor([5]), 0] = 1
except IndexError as e:
    print(type(e).__name__, e)

"""Guided-attention loss (Tachibana et al.) and alignment diagnostics of TTS training code: the diagonal prior built
with meshgrid over each utterance's lengths, padded into a batch, masked means, focus rate and diagonal-ness, and
the attention-prior (beta-binomial) used by RAD-TTS style aligners."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(2)
torch.set_printoptions(precision=4, sci_mode=False)


def guided_prior(ilen, olen, sigma=0.4):
    grid_x, grid_y = torch.meshgrid(torch.arange(olen), torch.arange(ilen), indexing="ij")
    grid_x, grid_y = grid_x.float(), grid_y.float()
    return 1.0 - torch.exp(-((grid_y / ilen - grid_x / olen) ** 2) / (2 * sigma**2))


def batch_prior(ilens, olens, sigma=0.4):
    n = len(ilens)
    W = torch.zeros((n, max(olens), max(ilens)))
    for i, (il, ol) in enumerate(zip(ilens, olens)):
        W[i, :ol, :il] = guided_prior(il, ol, sigma)
    return W


def make_mask(lengths, maxlen=None):
    maxlen = maxlen or int(lengths.max())
    return torch.arange(maxlen, device=lengths.device).expand(len(lengths), maxlen) < lengths.unsqueeze(1)


ilens, olens = torch.tensor([5, 3]), torch.tensor([8, 6])
W = batch_prior(ilens.tolist(), olens.tolist())
print(W.shape, W.dtype)
print(W[1].round(decimals=4))
masks = make_mask(olens).unsqueeze(-1) & make_mask(ilens).unsqueeze(-2)
print(masks.shape, masks.sum().item(), masks.dtype)
logits = torch.randn(2, 8, 5, requires_grad=True)
att = F.softmax(logits.masked_fill(~make_mask(ilens).unsqueeze(1), float("-inf")), dim=-1)
att = att.masked_fill(~make_mask(olens).unsqueeze(-1), 0.0)
loss = torch.mean((W * att).masked_select(masks))
loss.backward()
print(round(loss.item(), 4), logits.grad.abs().sum(-1).round(decimals=4))
print(torch.isnan(logits.grad).any().item(), logits.grad[1, 6:].abs().max().item())

# Focus rate and diagonal score.
focus = att.max(dim=-1).values.sum(-1) / olens
print(focus.round(decimals=4).detach(), att.argmax(-1))
diag = torch.stack([torch.diagonal(a[: int(o), : int(i)], 0).sum() for a, o, i in zip(att, olens, ilens)])
print(diag.round(decimals=4).detach())
print(torch.diagonal(W, offset=1, dim1=1, dim2=2).round(decimals=4))


def beta_binomial_prior(phonemes, mels, scaling=1.0):
    k = torch.arange(phonemes + 1, dtype=torch.float64)
    out = []
    for i in range(1, mels + 1):
        a, b = scaling * i, scaling * (mels + 1 - i)
        logp = (
            torch.lgamma(k + a)
            + torch.lgamma(phonemes - k + b)
            - torch.lgamma(torch.tensor(phonemes + a + b))
            + torch.lgamma(torch.tensor(phonemes + 1.0, dtype=torch.float64))
            - torch.lgamma(k + 1)
            - torch.lgamma(phonemes - k + 1)
            - torch.lgamma(torch.tensor(a + b, dtype=torch.float64))
            + torch.lgamma(torch.tensor(a))
            + torch.lgamma(torch.tensor(b))
        )
        out.append(logp.exp())
    return torch.stack(out)


P = beta_binomial_prior(3, 5)
print(P.dtype, P.shape, P.sum(1).round(decimals=6))
print(P.round(decimals=4))
print(P.argmax(1), torch.log(P.clamp_min(1e-8)).float().round(decimals=3)[0])
print(torch.lgamma(torch.tensor([0.0, -1.0, 0.5, -0.5, float("inf")])))
print(math.isclose(torch.lgamma(torch.tensor(6.0)).item(), math.log(120), rel_tol=1e-6))
try:
    torch.meshgrid(torch.arange(3), torch.zeros(2, 2), indexing="ij")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.meshgrid(torch.arange(3), torch.arange(2), indexing="yx")
except RuntimeError as e:
    print(type(e).__name__, e)
print([g.shape for g in torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")])
print([g.stride() for g in torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")])

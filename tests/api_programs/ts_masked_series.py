"""Sensor series with gaps handled by torch.masked, as recent forecasting code experiments with it: the masked
reductions (sum/mean/amax/var/std with mask=), masked softmax attention over observed time steps only,
MaskedTensor built from an observation mask (reprs with --), torch functions applied to it (mean, exp, where,
softmax, argmax, all), the same statistics by hand with where/nansum, and masked-out rows' identities."""

import warnings

import torch

warnings.simplefilter("ignore", UserWarning)  # PyTorch's MaskedTensor is a prototype and says so
torch.set_printoptions(precision=4, sci_mode=False)

t = torch.arange(8, dtype=torch.float32)
values = torch.stack([10 + torch.sin(t), 5 + 0.5 * t, 2 * torch.cos(t / 2)])
observed = torch.tensor([[1, 1, 0, 1, 0, 1, 1, 1],
                         [0, 1, 1, 1, 1, 0, 0, 1],
                         [1, 0, 0, 0, 1, 1, 0, 0]], dtype=torch.bool)
print("observed per series", observed.sum(1), "fraction", round(observed.float().mean().item(), 4))

print("masked sum", torch.masked.sum(values, 1, mask=observed))
print("masked mean", torch.masked.mean(values, 1, mask=observed))
print("by hand", torch.where(observed, values, 0).sum(1) / observed.sum(1))
print("nan route", torch.where(observed, values, float("nan")).nanmean(1))
print("masked amax/amin", torch.masked.amax(values, 1, mask=observed), torch.masked.amin(values, 1, mask=observed))
print("masked var", torch.masked.var(values, 1, unbiased=True, mask=observed))
print("masked std pop", torch.masked.std(values, 1, unbiased=False, mask=observed))
print("masked cumsum", torch.masked.cumsum(values[2], 0, mask=observed[2]))
print("masked norm", torch.masked.norm(values, 2.0, 1, mask=observed))
empty = torch.zeros(2, 3, dtype=torch.bool)
print("empty rows", torch.masked.sum(values[:2, :3], 1, mask=empty), torch.masked.amax(values[:2, :3], 1, mask=empty),
      torch.masked.mean(values[:2, :3], 1, mask=empty))

scores = torch.einsum("st,su->stu", values, values) / 10
attn = torch.masked.softmax(scores, -1, mask=observed.unsqueeze(1).expand_as(scores))
print("masked attention row", attn[0, 0])
print("rows sum to 1", torch.allclose(attn.sum(-1), torch.ones(3, 8)),
      "masked steps get 0", bool((attn[:, :, ~observed[0]][0] == 0).all()))
ref = torch.softmax(scores.masked_fill(~observed.unsqueeze(1), float("-inf")), -1)
print("same as -inf fill", torch.allclose(attn, ref))

mt = torch.masked.masked_tensor(values[:, :4], observed[:, :4])
print(mt)
print("is masked", torch.masked.is_masked_tensor(mt), isinstance(mt, torch.masked.MaskedTensor))
print("mt.sum(1)", mt.sum(1))
print("torch.mean(mt, 1)", torch.mean(mt, 1))
print("torch.mean(mt)", torch.mean(mt))
print("torch.exp(mt)", torch.exp(mt / 10))
print("softmax", torch.softmax(mt, 1))
print("argmax", torch.argmax(mt, 1))
print("where", torch.where(mt.get_mask(), mt, mt * 0))
print("all > 0", torch.all(mt > 0), "to_tensor", mt.to_tensor(-1.0)[1])
print("amax keepdim", mt.amax(1, keepdim=True))
try:
    mt + torch.masked.masked_tensor(values[:, :4], ~observed[:, :4])
except ValueError as e:
    print("ValueError", e)
try:
    torch.masked.masked_tensor(values, observed.float())
except TypeError as e:
    print("TypeError", e)

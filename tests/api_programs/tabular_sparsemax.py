"""Tabular deep learning: TabNet's sparsemax and entmax-1.5 as hand-written autograd Functions (sort, cumsum, gather,
ctx.save_for_backward, gradcheck), ghost batch norm over chunks, attentive masks with prior scaling; an
FT-Transformer with a numerical feature tokenizer (einsum with per-feature weights), categorical offsets, a CLS
token, and per-group AdamW; quantile binning with torch.quantile and bucketize."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function

rng = np.random.default_rng(11)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def _make_ix_like(input, dim=0):
    d = input.size(dim)
    rho = torch.arange(1, d + 1, device=input.device, dtype=input.dtype)
    view = [1] * input.dim()
    view[0] = -1
    return rho.view(view).transpose(0, dim)


class SparsemaxFunction(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input -= max_val
        tau, supp_size = SparsemaxFunction._threshold_and_support(input, dim=dim)
        output = torch.clamp(input - tau, min=0)
        ctx.save_for_backward(supp_size, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        supp_size, output = ctx.saved_tensors
        dim = ctx.dim
        grad_input = grad_output.clone()
        grad_input[output == 0] = 0
        v_hat = grad_input.sum(dim=dim) / supp_size.to(output.dtype).squeeze()
        v_hat = v_hat.unsqueeze(dim)
        grad_input = torch.where(output != 0, grad_input - v_hat, grad_input)
        return grad_input, None

    @staticmethod
    def _threshold_and_support(input, dim=-1):
        input_srt, _ = torch.sort(input, descending=True, dim=dim)
        input_cumsum = input_srt.cumsum(dim) - 1
        rhos = _make_ix_like(input, dim)
        support = rhos * input_srt > input_cumsum
        support_size = support.sum(dim=dim).unsqueeze(dim)
        tau = input_cumsum.gather(dim, support_size - 1)
        tau /= support_size.to(input.dtype)
        return tau, support_size


class Entmax15Function(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val
        input = input / 2
        Xsrt, _ = torch.sort(input, descending=True, dim=dim)
        rho = _make_ix_like(input, dim)
        mean = Xsrt.cumsum(dim) / rho
        mean_sq = (Xsrt ** 2).cumsum(dim) / rho
        ss = rho * (mean_sq - mean ** 2)
        delta = (1 - ss) / rho
        delta_nz = torch.clamp(delta, 0)
        tau = mean - torch.sqrt(delta_nz)
        support_size = (tau <= Xsrt).sum(dim).unsqueeze(dim)
        tau_star = tau.gather(dim, support_size - 1)
        output = torch.clamp(input - tau_star, min=0) ** 2
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (Y,) = ctx.saved_tensors
        gppr = Y.sqrt()
        dX = grad_output * gppr
        q = dX.sum(ctx.dim) / gppr.sum(ctx.dim)
        q = q.unsqueeze(ctx.dim)
        dX -= q * gppr
        return dX, None


sparsemax, entmax15 = SparsemaxFunction.apply, Entmax15Function.apply
z = T(3, 5, scale=1.5)
sp = sparsemax(z.clone(), -1)
en = entmax15(z, -1)
print("sparsemax", r(sp, 10), sp.sum(-1).tolist(), (sp == 0).sum().item())
print("entmax", r(en, 10), r(en.sum(-1), 3), (en == 0).sum().item())
print("dim0", r(sparsemax(z.clone(), 0).sum(0), 5), r(entmax15(z, 0).sum(0), 5))
zd = z.double().requires_grad_()
print("gradcheck", torch.autograd.gradcheck(lambda x: sparsemax(x.clone(), -1), (zd,), eps=1e-6, atol=1e-5),
      torch.autograd.gradcheck(lambda x: entmax15(x, -1), (zd,), eps=1e-6, atol=1e-5))
zg = z.clone().requires_grad_()
out = sparsemax(zg * 1.0, -1)
(out * torch.arange(5.0)).sum().backward()
print("grad", r(zg.grad, 10), out.grad_fn.__class__.__name__)
print("softmax vs", r(F.softmax(z, -1)[0]), r(sp[0]))


class GhostBatchNorm(nn.Module):
    def __init__(self, d, virtual_batch_size=2, momentum=0.02):
        super().__init__()
        self.vbs = virtual_batch_size
        self.bn = nn.BatchNorm1d(d, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.vbs)), 0)
        return torch.cat([self.bn(x_) for x_ in chunks], dim=0)


class AttentiveTransformer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out, bias=False)
        self.bn = GhostBatchNorm(d_out)

    def forward(self, priors, feat):
        x = self.bn(self.fc(feat))
        x = torch.mul(x, priors)
        return sparsemax(x, -1)


att = AttentiveTransformer(4, 6)
with torch.no_grad():
    att.fc.weight.copy_(T(6, 4))
feat = T(6, 4)
priors = torch.ones(6, 6)
masks, M_loss = [], 0.0
for step in range(3):
    M = att(priors, feat)
    M_loss += torch.mean(torch.sum(torch.mul(M, torch.log(M + 1e-15)), dim=1))
    priors = torch.mul(1.3 - M, priors)
    masks.append(M)
    print("mask", step, r(M[0]), (M > 0).sum(1).tolist())
print("bn", att.bn.bn.num_batches_tracked.item(), r(att.bn.bn.running_mean), round(M_loss.item() / 3, 4))
explain = torch.stack(masks).sum(0)
print("explain", r(explain / explain.sum(1, keepdim=True), 6))


class NumericalTokenizer(nn.Module):
    def __init__(self, n_num, cards, d):
        super().__init__()
        self.weight = nn.Parameter(T(n_num + 1, d, scale=0.3))
        self.bias = nn.Parameter(T(n_num + len(cards), d, scale=0.3))
        self.register_buffer("category_offsets", torch.tensor([0] + cards[:-1]).cumsum(0))
        self.category_embeddings = nn.Embedding(sum(cards), d)
        nn.init.kaiming_uniform_(self.category_embeddings.weight, a=math.sqrt(5))
        with torch.no_grad():
            self.category_embeddings.weight.copy_(T(sum(cards), d, scale=0.3))

    def forward(self, x_num, x_cat):
        x_num = torch.cat([torch.ones(len(x_num), 1, device=x_num.device), x_num], dim=1)
        x = self.weight[None] * x_num[:, :, None]
        x = torch.cat([x, self.category_embeddings(x_cat + self.category_offsets[None])], dim=1)
        bias = torch.cat([torch.zeros(1, self.bias.shape[1], device=x.device), self.bias])
        return x + bias[None]


class FTTransformer(nn.Module):
    def __init__(self, n_num=3, cards=(3, 4), d=8):
        super().__init__()
        self.tok = NumericalTokenizer(n_num, list(cards), d)
        layer = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, activation="relu", batch_first=True,
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Sequential(nn.LayerNorm(d), nn.ReLU(), nn.Linear(d, 1))
        with torch.no_grad():
            for n, p in self.named_parameters():
                if n.startswith("enc") or n.startswith("head"):
                    p.copy_(T(*p.shape, scale=0.3))

    def forward(self, x_num, x_cat):
        x = self.tok(x_num, x_cat)
        x = self.enc(x)
        return self.head(x[:, 0]).squeeze(-1)


ft = FTTransformer()
print("offsets", ft.tok.category_offsets.tolist(), ft.tok.category_embeddings.weight.shape)
x_num = T(6, 3)
x_cat = torch.from_numpy(np.stack([rng.integers(0, 3, 6), rng.integers(0, 4, 6)], 1))
print("tokens", tuple(ft.tok(x_num, x_cat).shape), r(ft.tok(x_num, x_cat)[0, 0]))
y = T(6)
no_wd = [p for n, p in ft.named_parameters() if "tok" in n or "norm" in n or n.endswith(".bias")]
wd = [p for n, p in ft.named_parameters() if not ("tok" in n or "norm" in n or n.endswith(".bias"))]
opt = torch.optim.AdamW([{"params": wd}, {"params": no_wd, "weight_decay": 0.0}], lr=3e-3, weight_decay=1e-5)
print("groups", len(wd), len(no_wd), [g["weight_decay"] for g in opt.param_groups])
for step in range(3):
    pred = ft(x_num, x_cat)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("ft", step, round(loss.item(), 4), r(pred, 3))
print("bias grad", r(ft.tok.bias.grad, 4), ft.tok.weight.grad.shape)

# quantile binning of a numerical feature
col = torch.from_numpy(rng.lognormal(size=50).astype(np.float32))
edges = torch.quantile(col, torch.linspace(0, 1, 5))
bins = torch.bucketize(col, edges[1:-1], right=False)
print("quantile", r(edges, 5), torch.bincount(bins).tolist(), bins[:8].tolist())
print("nanquantile", round(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5).item(), 4),
      torch.quantile(col, 0.3, interpolation="nearest").item() in col.tolist())
try:
    torch.quantile(col, torch.tensor([1.5]))
except RuntimeError as e:
    print("quantile err", type(e).__name__, e)
try:
    sparsemax(z.clone(), 2)
except IndexError as e:
    print("dim err", type(e).__name__, e)

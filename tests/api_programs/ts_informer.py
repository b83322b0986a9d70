"""Informer's pieces from its reference code: fixed sinusoidal positional and temporal embeddings (nn.Embedding
with a frozen sin/cos table), token embedding by a circular Conv1d with kaiming_normal_ leaky_relu init (only the
init's statistics printed), ProbSparse attention (sampled keys via a fixed index, the max-minus-mean sparsity
measure, top-u queries, cumsum initial context for masked decoding, ProbMask by advanced indexing), distilling
layers (Conv1d, BatchNorm1d, ELU, MaxPool1d stride 2 padding 1), and the generative-style decoder input."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, d_model).float()
        pe.require_grad = False
        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, :x.size(1)]


class FixedEmbedding(nn.Module):
    def __init__(self, c_in, d_model):
        super().__init__()
        w = torch.zeros(c_in, d_model).float()
        position = torch.arange(0, c_in).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        w[:, 0::2] = torch.sin(position * div_term)
        w[:, 1::2] = torch.cos(position * div_term)
        self.emb = nn.Embedding(c_in, d_model)
        self.emb.weight = nn.Parameter(w, requires_grad=False)

    def forward(self, x):
        return self.emb(x).detach()


class TemporalEmbedding(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.hour_embed = FixedEmbedding(24, d_model)
        self.weekday_embed = FixedEmbedding(7, d_model)
        self.day_embed = FixedEmbedding(32, d_model)
        self.month_embed = FixedEmbedding(13, d_model)

    def forward(self, x):
        x = x.long()
        return (self.hour_embed(x[:, :, 3]) + self.weekday_embed(x[:, :, 2]) + self.day_embed(x[:, :, 1])
                + self.month_embed(x[:, :, 0]))


class TokenEmbedding(nn.Module):
    def __init__(self, c_in, d_model):
        super().__init__()
        self.tokenConv = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1, padding_mode="circular", bias=False)
        for m in self.modules():
            if isinstance(m, nn.Conv1d):
                nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x):
        return self.tokenConv(x.permute(0, 2, 1)).transpose(1, 2)


class ProbAttention(nn.Module):
    def __init__(self, mask_flag=True, factor=2, scale=None):
        super().__init__()
        self.factor, self.scale, self.mask_flag = factor, scale, mask_flag

    def _prob_QK(self, Q, K, sample_k, n_top):
        B, H, L_K, E = K.shape
        _, _, L_Q, _ = Q.shape
        K_expand = K.unsqueeze(-3).expand(B, H, L_Q, L_K, E)
        index_sample = (torch.arange(L_Q).unsqueeze(1) * 7 + torch.arange(sample_k) * 3) % L_K
        K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]
        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze(-2)
        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)
        M_top = M.topk(n_top, sorted=False)[1]
        Q_reduce = Q[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], M_top, :]
        Q_K = torch.matmul(Q_reduce, K.transpose(-2, -1))
        return Q_K, M_top, M

    def _get_initial_context(self, V, L_Q):
        B, H, L_V, D = V.shape
        if not self.mask_flag:
            V_sum = V.mean(dim=-2)
            return V_sum.unsqueeze(-2).expand(B, H, L_Q, V_sum.shape[-1]).clone()
        assert L_Q == L_V
        return V.cumsum(dim=-2)

    def _update_context(self, context_in, V, scores, index, L_Q):
        B, H, L_V, D = V.shape
        if self.mask_flag:
            _mask = torch.ones(L_Q, scores.shape[-1], dtype=torch.bool).triu(1)
            _mask_ex = _mask[None, None, :].expand(B, H, L_Q, scores.shape[-1])
            indicator = _mask_ex[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :]
            scores.masked_fill_(indicator.view(scores.shape), -math.inf)
        attn = torch.softmax(scores, dim=-1)
        context_in[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = \
            torch.matmul(attn, V).type_as(context_in)
        return context_in, attn

    def forward(self, queries, keys, values):
        B, L_Q, H, D = queries.shape
        _, L_K, _, _ = keys.shape
        queries, keys, values = queries.transpose(2, 1), keys.transpose(2, 1), values.transpose(2, 1)
        U_part = min(self.factor * int(math.ceil(math.log(L_K))), L_K)
        u = min(self.factor * int(math.ceil(math.log(L_Q))), L_Q)
        scores_top, index, M = self._prob_QK(queries, keys, sample_k=U_part, n_top=u)
        scores_top = scores_top * (self.scale or 1.0 / math.sqrt(D))
        context = self._get_initial_context(values, L_Q)
        context, attn = self._update_context(context, values, scores_top, index, L_Q)
        return context.transpose(2, 1).contiguous(), attn, index, M


class ConvLayer(nn.Module):
    def __init__(self, c_in):
        super().__init__()
        self.downConv = nn.Conv1d(c_in, c_in, kernel_size=3, padding=1, padding_mode="circular")
        self.norm = nn.BatchNorm1d(c_in)
        self.activation = nn.ELU()
        self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        x = self.downConv(x.permute(0, 2, 1))
        x = self.maxPool(self.activation(self.norm(x)))
        return x.transpose(1, 2)


d_model, L, B = 8, 16, 2
pos = PositionalEmbedding(d_model)
print("pe", tuple(pos.pe.shape), pos.pe[0, 1, :4], "buffers", [n for n, _ in pos.named_buffers()])
hours = torch.arange(L) % 24
stamp = torch.stack([torch.full((L,), 3), 1 + torch.arange(L) // 24, (torch.arange(L) // 24) % 7, hours], -1)
stamp = stamp.unsqueeze(0).repeat(B, 1, 1).float()
temb = TemporalEmbedding(d_model)
te = temb(stamp)
print("temporal", tuple(te.shape), te[0, 5, :4], te.requires_grad,
      [p.requires_grad for p in temb.parameters()][:2])
tok = TokenEmbedding(3, d_model)
w = tok.tokenConv.weight
gain = nn.init.calculate_gain("leaky_relu")
print("kaiming std target", round(gain / math.sqrt(3 * 3), 4), "shape", tuple(w.shape),
      "finite", bool(w.isfinite().all()))
with torch.no_grad():
    w.copy_(torch.sin(torch.arange(w.numel()).float() * 0.9).view_as(w) * 0.3)
t = torch.arange(L, dtype=torch.float32)
x = torch.stack([torch.sin(t / 3), torch.cos(t / 5), t / L], -1).unsqueeze(0).repeat(B, 1, 1)
x[1] *= -1
emb = tok(x) + pos(x) + te
print("embedding", tuple(emb.shape), emb[1, 0, :4])
circ = F.conv1d(F.pad(x.permute(0, 2, 1), (1, 1), mode="circular"), w)
print("circular pad matches", torch.allclose(circ.transpose(1, 2), tok(x), atol=1e-6))

Hh = 2
q = emb.view(B, L, Hh, d_model // Hh)
prob = ProbAttention(mask_flag=True, factor=2)
ctx, attn, index, M = prob(q, q, q)
print("u", index.shape[-1], "top queries", index.sort(-1).values[0, 0].tolist())
print("M", M[0, 0, :5])
print("context", tuple(ctx.shape), ctx[0, 3, 0], "attn", tuple(attn.shape))
print("masked rows sum to 1", torch.allclose(attn.sum(-1), torch.ones(1)),
      "zeros above diag", bool((attn[0, 0, 0, index[0, 0, 0] + 1:] == 0).all()))
prob_nomask = ProbAttention(mask_flag=False, factor=2)
ctx2, attn2, _, _ = prob_nomask(q, q, q)
print("no-mask context", ctx2[1, 2, 1])
full = torch.softmax(torch.einsum("blhe,bshe->bhls", q, q) / math.sqrt(d_model // Hh), -1)
sel = full[torch.arange(B)[:, None, None], torch.arange(Hh)[None, :, None], index]
print("top rows equal full attention", torch.allclose(sel, attn2, atol=1e-6))

distil = ConvLayer(d_model)
with torch.no_grad():
    for i, p in enumerate(distil.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel()).float() * 0.3 + i).view_as(p) * 0.2)
out = distil(emb)
print("distil", tuple(out.shape), out[0, :2, :3])
print("bn stats", distil.norm.running_mean[:3], distil.norm.running_var[:3])
distil.eval()
print("eval distil", distil(emb)[1, -1, :3])
label_len, pred_len = 8, 4
dec_inp = torch.cat([x[:, -label_len:, :], torch.zeros(B, pred_len, x.shape[-1])], dim=1)
print("decoder input", tuple(dec_inp.shape), dec_inp[0, -5:, 0])

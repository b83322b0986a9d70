"""Temporal Fusion Transformer pieces as pytorch-forecasting writes them: gated linear units and gated residual
networks with context, variable selection networks (softmax weights over per-variable GRNs), static covariate
encoders, an LSTM encoder/decoder seeded from static context, interpretable multi-head attention sharing the value
projection with a causal mask, nn.MultiheadAttention's averaged weights for comparison, and a multi-quantile
output trained by the pinball loss."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.25):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.71 + 0.3 * i).view_as(p) * scale)
    return module


class GatedLinearUnit(nn.Module):
    def __init__(self, input_size, hidden_size, dropout=None):
        super().__init__()
        self.dropout = nn.Dropout(dropout) if dropout is not None else None
        self.fc = nn.Linear(input_size, hidden_size * 2)

    def forward(self, x):
        if self.dropout is not None:
            x = self.dropout(x)
        return F.glu(self.fc(x), dim=-1)


class AddNorm(nn.Module):
    def __init__(self, input_size, skip_size):
        super().__init__()
        self.resample = skip_size != input_size
        self.mask = nn.Parameter(torch.zeros(input_size))
        self.gate = nn.Sigmoid()
        self.norm = nn.LayerNorm(input_size)

    def forward(self, x, skip):
        if self.resample:
            flat = skip.contiguous().view(-1, skip.size(-1))
            flat = F.interpolate(flat.unsqueeze(1), x.size(-1), mode="linear", align_corners=True).squeeze(1)
            skip = flat.view(*skip.shape[:-1], x.size(-1))
        skip = skip * self.gate(self.mask) * 2.0
        return self.norm(x + skip)


class GatedResidualNetwork(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, dropout=0.1, context_size=None):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.elu = nn.ELU()
        self.context = nn.Linear(context_size, hidden_size, bias=False) if context_size else None
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.glu = GatedLinearUnit(hidden_size, output_size, dropout)
        self.add_norm = AddNorm(output_size, input_size)

    def forward(self, x, context=None):
        residual = x
        x = self.fc1(x)
        if context is not None:
            x = x + self.context(context)
        x = self.fc2(self.elu(x))
        return self.add_norm(self.glu(x), residual)


class VariableSelectionNetwork(nn.Module):
    def __init__(self, input_sizes, hidden_size, context_size=None):
        super().__init__()
        self.input_sizes = input_sizes
        total = sum(input_sizes.values())
        self.flattened_grn = GatedResidualNetwork(total, hidden_size, len(input_sizes), 0.1, context_size)
        self.single_variable_grns = nn.ModuleDict(
            {name: GatedResidualNetwork(size, hidden_size, hidden_size, 0.1) for name, size in input_sizes.items()})
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, context=None):
        var_outputs = [self.single_variable_grns[name](x[name]) for name in self.input_sizes]
        var_outputs = torch.stack(var_outputs, dim=-1)
        flat = torch.cat([x[name] for name in self.input_sizes], dim=-1)
        sparse_weights = self.softmax(self.flattened_grn(flat, context)).unsqueeze(-2)
        outputs = (var_outputs * sparse_weights).sum(dim=-1)
        return outputs, sparse_weights


class InterpretableMultiHeadAttention(nn.Module):
    def __init__(self, n_head, d_model):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.v_layer = nn.Linear(d_model, self.d_k)
        self.q_layers = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(n_head)])
        self.k_layers = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(n_head)])
        self.w_h = nn.Linear(self.d_k, d_model, bias=False)

    def forward(self, q, k, v, mask=None):
        heads, attns = [], []
        vs = self.v_layer(v)
        for i in range(self.n_head):
            scores = torch.bmm(self.q_layers[i](q), self.k_layers[i](k).permute(0, 2, 1)) / math.sqrt(self.d_k)
            if mask is not None:
                scores = scores.masked_fill(mask, -1e9)
            attn = F.softmax(scores, dim=2)
            heads.append(torch.bmm(attn, vs))
            attns.append(attn)
        head = torch.stack(heads, dim=2)
        attn = torch.stack(attns, dim=2)
        outputs = self.w_h(torch.mean(head, dim=2))
        return outputs, attn


def quantile_loss(y_pred, target, quantiles):
    errors = target.unsqueeze(-1) - y_pred
    q = torch.tensor(quantiles, dtype=y_pred.dtype)
    return torch.max((q - 1) * errors, q * errors).mean()


B, enc_len, dec_len, H = 2, 8, 4, 8
t = torch.arange(enc_len + dec_len, dtype=torch.float32)
inputs = {"target": torch.sin(t / 2).expand(B, -1).unsqueeze(-1) * torch.tensor([1.0, 2.0]).view(B, 1, 1),
          "time_idx": (t / 10).expand(B, -1).unsqueeze(-1),
          "price": torch.stack([torch.cos(t / 3), torch.sin(t / 5)], -1).expand(B, -1, -1)}
static = torch.tensor([[0.5, -1.0], [1.0, 0.0]])

static_enc = det_(GatedResidualNetwork(2, H, H, 0.1))
vsn = det_(VariableSelectionNetwork({"target": 1, "time_idx": 1, "price": 2}, H, context_size=H), 0.2)
lstm_enc = det_(nn.LSTM(H, H, batch_first=True), 0.2)
lstm_dec = det_(nn.LSTM(H, H, batch_first=True), 0.2)
attn = det_(InterpretableMultiHeadAttention(2, H), 0.3)
head = det_(nn.Linear(H, 3), 0.3)
quantiles = [0.1, 0.5, 0.9]
modules = nn.ModuleList([static_enc, vsn, lstm_enc, lstm_dec, attn, head]).eval()
print("modules", len(list(modules.modules())), sum(p.numel() for p in modules.parameters()))
print("grn", static_enc)

c = static_enc(static)
print("static context", c.shape, c[0])
ctx = c.unsqueeze(1).expand(-1, enc_len + dec_len, -1)
emb, weights = vsn(inputs, ctx)
print("vsn", tuple(emb.shape), tuple(weights.shape), "weights sum to 1", torch.allclose(weights.sum(-1), torch.ones(1)))
print("mean variable importance", weights.squeeze(-2).mean(dim=(0, 1)))
h0 = (c.unsqueeze(0), torch.zeros_like(c).unsqueeze(0))
enc_out, (hn, cn) = lstm_enc(emb[:, :enc_len], h0)
dec_out, _ = lstm_dec(emb[:, enc_len:], (hn, cn))
seq = torch.cat([enc_out, dec_out], dim=1)
L = seq.size(1)
causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
mask = causal[enc_len:].unsqueeze(0).expand(B, -1, -1)
out, att = attn(seq[:, enc_len:], seq, seq, mask)
print("attention", tuple(out.shape), tuple(att.shape), "future masked", bool((att[:, 0, :, enc_len + 1:] == 0).all()))
print("attn row", att[0, -1, 0])
y = head(out)
print("quantile forecast", y[1])
target = inputs["target"][:, enc_len:, 0]
print("pinball", round(quantile_loss(y, target, quantiles).item(), 4))

mha = det_(nn.MultiheadAttention(H, 2, batch_first=True), 0.2).eval()
o, w = mha(seq[:, enc_len:], seq, seq, attn_mask=causal[enc_len:])
o2, w2 = mha(seq[:, enc_len:], seq, seq, attn_mask=causal[enc_len:], average_attn_weights=False)
print("mha", tuple(o.shape), tuple(w.shape), tuple(w2.shape), torch.allclose(w, w2.mean(1)))
print("mha row", w[0, 0])
float_mask = torch.zeros(dec_len, L).masked_fill(causal[enc_len:], float("-inf"))
o3, _ = mha(seq[:, enc_len:], seq, seq, attn_mask=float_mask, need_weights=False)
print("bool==float mask", torch.allclose(o, o3, atol=1e-6), _ is None)

modules.train()
opt = torch.optim.Adam(modules.parameters(), lr=1e-2)
for step in range(4):
    opt.zero_grad()
    torch.manual_seed(step)
    c = static_enc(static)
    emb, _ = vsn(inputs, c.unsqueeze(1).expand(-1, L, -1))
    enc_out, st = lstm_enc(emb[:, :enc_len], (c.unsqueeze(0), torch.zeros_like(c).unsqueeze(0)))
    dec_out, _ = lstm_dec(emb[:, enc_len:], st)
    seq = torch.cat([enc_out, dec_out], 1)
    out, _ = attn(seq[:, enc_len:], seq, seq, mask)
    loss = quantile_loss(head(out), target, quantiles)
    loss.backward()
    opt.step()
    print("step", step, "loss finite", bool(torch.isfinite(loss)), "lr", opt.param_groups[0]["lr"])

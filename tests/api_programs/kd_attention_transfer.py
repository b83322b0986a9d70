"""Attention-map distillation (MiniLM/TinyBERT style): force need_weights through a kwargs pre-hook, match maps."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
d_t, d_s, heads = 8, 4, 2
teacher = nn.TransformerEncoder(
    nn.TransformerEncoderLayer(d_t, heads, 16, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False
)
student = nn.TransformerEncoder(
    nn.TransformerEncoderLayer(d_s, heads, 8, dropout=0.0, batch_first=True), num_layers=1, enable_nested_tensor=False
)
teacher.eval().requires_grad_(False)
maps = {"t": [], "s": []}


def force_weights(module, args, kwargs):
    kwargs["need_weights"] = True
    kwargs["average_attn_weights"] = False
    return args, kwargs


def grab(key):
    def hook(module, args, output):
        maps[key].append(output[1])

    return hook


for key, enc in (("t", teacher), ("s", student)):
    for layer in enc.layers:
        layer.self_attn.register_forward_pre_hook(force_weights, with_kwargs=True)
        layer.self_attn.register_forward_hook(grab(key))

x_t = torch.randn(2, 5, d_t)
proj = nn.Linear(d_t, d_s)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
with torch.no_grad():
    t_out = teacher(x_t, src_key_padding_mask=pad)
s_out = student(proj(x_t), src_key_padding_mask=pad)
print("maps", [tuple(m.shape) for m in maps["t"]], [tuple(m.shape) for m in maps["s"]])
print("rows sum", maps["t"][0].sum(-1)[1, 0].round(decimals=4).tolist())
print("masked cols", maps["t"][1][1, 0, :, 3:].abs().sum().item())
print("teacher out", round(t_out.abs().sum().item(), 4), t_out.requires_grad, "student", type(s_out.grad_fn).__name__)

# last-layer attention KL, per head, ignoring padded queries
t_att, s_att = maps["t"][-1], maps["s"][-1]
valid = (~pad).float()[:, None, :, None]
kl = (t_att * (torch.log(t_att + 1e-12) - torch.log(s_att + 1e-12))) * valid
att_loss = kl.sum() / valid.sum() / heads
print("att KL", round(att_loss.item(), 4))
# value-relation (MiniLM): softmax(V V^T / sqrt(d))
v_t = t_out.reshape(2, 5, heads, -1).transpose(1, 2)
v_s = s_out.reshape(2, 5, heads, -1).transpose(1, 2)
rel_t = F.softmax(v_t @ v_t.transpose(-1, -2) / v_t.shape[-1] ** 0.5, -1)
rel_s = F.log_softmax(v_s @ v_s.transpose(-1, -2) / v_s.shape[-1] ** 0.5, -1)
vr = F.kl_div(rel_s.flatten(0, 2), rel_t.flatten(0, 2), reduction="batchmean")
print("value relation", round(vr.item(), 4))
hidden = F.mse_loss(s_out, proj(t_out).detach())
(att_loss + vr + hidden).backward()
print(
    "student grads",
    {n.split(".")[-1]: round(p.grad.abs().sum().item(), 4) for n, p in student.layers[0].self_attn.named_parameters()},
)
print("proj grad", round(proj.weight.grad.abs().sum().item(), 4))

# MultiheadAttention directly: kdim/vdim, per-head weights, attn_mask forms
mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=5)
q, k, v = torch.randn(2, 3, 8), torch.randn(2, 4, 6), torch.randn(2, 4, 5)
o, w = mha(q, k, v, average_attn_weights=False)
print(tuple(o.shape), tuple(w.shape), sorted(n for n, _ in mha.named_parameters()))
o2, w2 = mha(q, k, v)
print("averaged", tuple(w2.shape), torch.allclose(w2, w.mean(1), atol=1e-6))
print("no weights", mha(q, k, v, need_weights=False)[1])
causal = nn.Transformer.generate_square_subsequent_mask(3)
print(causal.tolist()[1])
sa = nn.MultiheadAttention(8, 2, batch_first=True)
_, wc = sa(q, q, q, attn_mask=causal)
print("causal upper", wc[0].triu(1).abs().sum().item(), wc[0].round(decimals=4)[2].tolist())
_, wb = sa(q, q, q, attn_mask=causal.isinf())
print("bool mask same", torch.allclose(wb, wc))
try:
    sa(q, q, q, attn_mask=torch.zeros(4, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.MultiheadAttention(8, 3)
except Exception as e:
    print(type(e).__name__, e)

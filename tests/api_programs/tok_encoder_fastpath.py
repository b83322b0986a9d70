"""nn.TransformerEncoder as sentence encoders use it: norm_first and post-norm layers, gelu and callable
activations, enable_nested_tensor with src_key_padding_mask in eval (padded positions come back as zeros),
the same call in training mode, a final LayerNorm, is_causal with a causal mask, [CLS] pooling and masked mean
pooling, the decoder layer with memory masks, and the warnings-free reprs."""

import warnings

import torch
from torch import nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.manual_seed(0)
torch.set_printoptions(precision=4)

B, T, D = 3, 5, 8
lengths = torch.tensor([5, 3, 1])
pad = torch.arange(T)[None, :] >= lengths[:, None]
x = torch.randn(B, T, D)

layer = nn.TransformerEncoderLayer(D, nhead=2, dim_feedforward=16, dropout=0.1, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(D), enable_nested_tensor=True)
print(enc.layers[1].activation_relu_or_gelu, enc.use_nested_tensor if hasattr(enc, "use_nested_tensor") else None)
print(enc.norm)
print("layers share weights", enc.layers[0].linear1.weight is enc.layers[1].linear1.weight,
      torch.equal(enc.layers[0].linear1.weight, enc.layers[1].linear1.weight))

enc.eval()
with torch.no_grad():
    y_eval = enc(x, src_key_padding_mask=pad)
print("eval", tuple(y_eval.shape))
print("padded rows", y_eval[1, 3:].abs().sum().item(), y_eval[2, 1:].abs().sum().item())
print(y_eval[2, 0])

# with grad enabled the slow path keeps computed values at pads
y_grad = enc(x, src_key_padding_mask=pad)
print("grad path pads nonzero", bool(y_grad[1, 3:].abs().sum() > 0))
print("valid positions agree", torch.allclose(y_grad[~pad], y_eval[~pad], atol=1e-5))

enc.train()
torch.manual_seed(1)
y_tr = enc(x, src_key_padding_mask=pad)
print("train output", tuple(y_tr.shape), round(y_tr.std().item(), 4))

# pre-norm with gelu
torch.manual_seed(2)
pre = nn.TransformerEncoderLayer(D, 2, 16, dropout=0.0, activation="gelu", norm_first=True, batch_first=True)
print(pre.norm_first, pre.activation_relu_or_gelu)
pre.eval()
y_pre = pre(x, src_key_padding_mask=pad)
manual = x + pre._sa_block(pre.norm1(x), None, pad)
manual = manual + pre._ff_block(pre.norm2(manual))
print("pre-norm by hand", torch.allclose(y_pre, manual, atol=1e-5))
print(y_pre[0, 0])

# a callable activation disables the gelu/relu flag
cal = nn.TransformerEncoderLayer(D, 2, 16, dropout=0.0, activation=F.silu, batch_first=True)
print("callable activation flag", cal.activation_relu_or_gelu)
print("silu out", tuple(cal(x).shape))

# causal encoder (a decoder-only LM block)
torch.manual_seed(3)
causal = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 2, 16, 0.0, batch_first=True), 1,
                               enable_nested_tensor=False)
mask = nn.Transformer.generate_square_subsequent_mask(T)
c1 = causal(x, mask=mask, is_causal=True)
c2 = causal(x[:, :3], mask=mask[:3, :3], is_causal=True)
print("prefix invariance", torch.allclose(c1[:, :3], c2, atol=1e-5))

# pooling
cls_vec = y_eval[:, 0]
keep = (~pad).unsqueeze(-1).float()
mean_vec = (y_grad * keep).sum(1) / keep.sum(1)
max_vec = y_grad.masked_fill(pad.unsqueeze(-1), float("-inf")).max(1).values
print("cls", tuple(cls_vec.shape), "mean", mean_vec[2, :4], "max", max_vec[2, :4])
print("mean of single token == token", torch.allclose(mean_vec[2], y_grad[2, 0]))
sim = F.cosine_similarity(mean_vec[:, None], mean_vec[None, :], dim=-1)
print(sim)

# decoder layer with memory masks
torch.manual_seed(4)
dec = nn.TransformerDecoderLayer(D, 2, 16, dropout=0.0, batch_first=True)
tgt = torch.randn(B, 4, D)
out = dec(tgt, y_grad.detach(), tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
          memory_key_padding_mask=pad, tgt_is_causal=True)
print("decoder", tuple(out.shape))
print(out[1, -1])
print([n for n, _ in dec.named_children()])

# encoder stack reprs
print(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 1, 8), 1, enable_nested_tensor=False))

for bad in (dict(src_key_padding_mask=torch.zeros(B, T + 1, dtype=torch.bool)),
            dict(mask=torch.zeros(T + 1, T + 1))):
    try:
        enc(x, **bad)
    except Exception as err:
        print(type(err).__name__, str(err)[:100])
try:
    nn.TransformerEncoderLayer(D, 2, activation="swish")
except Exception as err:
    print(type(err).__name__, err)

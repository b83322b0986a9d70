"""nn modules under torch.autocast('cpu', dtype=torch.bfloat16), as a model's forward meets them: Linear/Conv
layers in bfloat16, norms (BatchNorm/LayerNorm/GroupNorm) returning their input's dtype with float32 running
statistics, Embedding and EmbeddingBag untouched, LSTM run in bfloat16 while GRU stays float32, MultiheadAttention,
a Transformer encoder layer in training, residual adds that promote back to float32, forward hooks recording dtypes,
and a small CNN trained a few steps under autocast (losses in float32, gradients in each parameter's dtype)."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def close(a, b, tol=0.05):
    return bool((a.float() - b.float()).abs().max() < tol)


lin = nn.Linear(8, 8)
conv = nn.Conv2d(3, 4, 3, padding=1)
bn1, bn2 = nn.BatchNorm1d(8), nn.BatchNorm2d(4)
ln, gn = nn.LayerNorm(8), nn.GroupNorm(2, 4)
emb, bag = nn.Embedding(10, 8), nn.EmbeddingBag(10, 8, mode="mean")
lstm = nn.LSTM(8, 6, batch_first=True)
gru = nn.GRU(8, 6, batch_first=True)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

x = torch.randn(4, 8)
img = torch.randn(2, 3, 6, 6)
seq = torch.randn(2, 5, 8)
ids = torch.tensor([[1, 2, 3], [4, 5, 6]])

with torch.autocast("cpu", dtype=torch.bfloat16):
    h = lin(x)
    print("linear", h.dtype, close(h, lin(x.double().float()).float()))
    c = conv(img)
    print("conv2d", c.dtype, tuple(c.shape))
    print("batchnorm1d", bn1(h).dtype, bn1.running_mean.dtype, "tracked", bn1.num_batches_tracked.item())
    print("batchnorm2d", bn2(c).dtype, bn2.running_var.dtype)
    print("layernorm on bf16", ln(h).dtype, "on fp32", ln(x).dtype)
    print("groupnorm", gn(c).dtype)
    e = emb(ids)
    print("embedding", e.dtype, "bag", bag(ids).dtype)
    out, (hn, cn) = lstm(seq)
    print("lstm", out.dtype, hn.dtype, cn.dtype, tuple(out.shape))
    gout, gh = gru(seq)
    print("gru", gout.dtype, gh.dtype)
    att, weights = mha(seq, seq, seq)
    print("mha", att.dtype, weights.dtype, tuple(weights.shape), "rows sum to 1:",
          close(weights.float().sum(-1), torch.ones(2, 5), 0.02))
    y = enc(seq)
    print("encoder layer (train)", y.dtype, tuple(y.shape), "std", round(y.float().std().item(), 1))
    res = seq + lin(seq)
    print("residual fp32 + bf16", res.dtype)
    print("relu/gelu/silu keep", F.relu(h).dtype, F.gelu(h).dtype, F.silu(h).dtype)
    print("dropout keeps", F.dropout(h, 0.5, training=True).dtype)
    print("pools", F.max_pool2d(c, 2).dtype, F.adaptive_avg_pool2d(c, 1).dtype)
    print("flatten/view", c.flatten(1).dtype, c.view(2, -1).dtype)

print("running mean after 1 autocast batch:", bn1.running_mean[:4])
print("lstm vs fp32 close:", close(out, lstm(seq)[0], 0.03), "gru equal to fp32:", torch.equal(gout, gru(seq)[0]))

# forward hooks record what each layer saw and returned
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(8, 5))
seen = []
for name, mod in model.named_children():
    mod.register_forward_hook(lambda m, i, o, n=name: seen.append((n, type(m).__name__, str(i[0].dtype),
                                                                   str(o.dtype))))
with torch.autocast("cpu", dtype=torch.bfloat16):
    logits = model(img)
for entry in seen:
    print("hook", *entry)

# a few training steps under autocast
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
data = torch.randn(16, 3, 6, 6)
target = torch.randint(0, 5, (16,))
for step in range(5):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(data)
        loss = F.cross_entropy(logits, target)
    loss.backward()
    opt.step()
    print(f"step {step}: logits {logits.dtype} loss {loss.dtype} {loss.item():.2f} "
          f"grad {model[0].weight.grad.dtype} bn grad {model[1].weight.grad.dtype}")
print("bn running var:", [round(v, 2) for v in model[1].running_var[:4].tolist()])
model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    pred = model(data).argmax(1)
print("eval preds dtype", pred.dtype, "accuracy", round((pred == target).float().mean().item(), 2))

# modules already in bfloat16: autocast leaves them alone; float64 modules are never cast
m16 = nn.Linear(8, 3).bfloat16()
m64 = nn.Linear(8, 3).double()
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("bf16 module on bf16 input", m16(x.bfloat16()).dtype, "on fp32 input", m16(x).dtype)
    print("fp64 module", m64(x.double()).dtype)
try:
    m16(x)
except RuntimeError as e:
    print("RuntimeError:", e)

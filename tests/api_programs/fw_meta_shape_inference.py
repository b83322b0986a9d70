"""Shape inference on the meta device as model-sizing tools do it: run layers and functional ops on meta
inputs (convolutions, pooling, attention, RNNs, norms, embeddings, einsum, indexing, reductions, views and
broadcasting) to read output shapes, strides and dtypes without computing, count activation memory, and see
which data-dependent ops refuse meta tensors."""

import torch
from torch import nn
import torch.nn.functional as F

M = "meta"


def show(name, t):
    if isinstance(t, (tuple, list)):
        print(f"{name:22s}", [tuple(x.shape) for x in t if isinstance(x, torch.Tensor)])
    else:
        print(f"{name:22s}", tuple(t.shape), t.dtype, t.device.type, t.stride() if t.dim() <= 4 else "")


x = torch.empty(8, 3, 32, 32, device=M)
show("conv2d", F.conv2d(x, torch.empty(16, 3, 5, 5, device=M), stride=2, padding=2))
show("conv2d groups/dil", F.conv2d(torch.empty(2, 8, 20, 20, device=M), torch.empty(8, 2, 3, 3, device=M),
                                   groups=4, dilation=2))
show("conv_transpose2d", F.conv_transpose2d(x, torch.empty(3, 6, 4, 4, device=M), stride=2, padding=1))
show("conv1d", F.conv1d(torch.empty(4, 2, 50, device=M), torch.empty(5, 2, 7, device=M), padding="same"))
show("max_pool2d idx", F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True))
show("avg_pool2d ceil", F.avg_pool2d(x, 3, stride=2, ceil_mode=True))
show("adaptive_avg_pool2d", F.adaptive_avg_pool2d(x, (5, 7)))
show("interpolate", F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False))
show("pixel_shuffle", F.pixel_shuffle(torch.empty(1, 12, 4, 4, device=M), 2))
show("unfold", F.unfold(x, kernel_size=4, stride=4))
show("pad reflect", F.pad(x, (1, 2, 3, 4), mode="reflect"))

q = torch.empty(2, 4, 10, 16, device=M)
k = torch.empty(2, 4, 12, 16, device=M)
v = torch.empty(2, 4, 12, 32, device=M)
show("sdpa", F.scaled_dot_product_attention(q, k, v))
mha = nn.MultiheadAttention(32, 4, batch_first=True, device=M)
show("mha", mha(torch.empty(3, 9, 32, device=M), torch.empty(3, 11, 32, device=M), torch.empty(3, 11, 32, device=M)))
lstm = nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True, device=M)
out, (h, c) = lstm(torch.empty(5, 7, 10, device=M))
show("lstm out/h/c", (out, h, c))
gru = nn.GRU(6, 8, device=M)
show("gru", gru(torch.empty(4, 3, 6, device=M)))
enc = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, device=M)
show("transformer layer", enc(torch.empty(2, 5, 32, device=M)))

show("layer_norm", F.layer_norm(torch.empty(2, 5, 8, device=M), (8,)))
show("group_norm", F.group_norm(x, 3))
bn = nn.BatchNorm2d(3, device=M)
show("batch_norm", bn(x))
show("embedding", F.embedding(torch.empty(4, 6, dtype=torch.long, device=M), torch.empty(100, 12, device=M)))
show("one_hot-free gather", torch.empty(5, 7, device=M).gather(1, torch.empty(5, 2, dtype=torch.long, device=M)))
show("einsum", torch.einsum("bhqd,bhkd->bhqk", q, k))
show("matmul broadcast", torch.empty(7, 1, 3, 4, device=M) @ torch.empty(5, 4, 2, device=M))
show("bmm", torch.bmm(torch.empty(3, 2, 5, device=M), torch.empty(3, 5, 4, device=M)))
show("cat/stack", (torch.cat([x, x], 1), torch.stack([x, x], 0)))
show("reductions", (x.sum((2, 3)), x.mean(1, keepdim=True), x.amax(-1), x.std(0)))
show("max dim", x.max(1))
show("topk", torch.topk(torch.empty(4, 50, device=M), 5))
show("sort", torch.sort(torch.empty(3, 9, device=M), dim=1))
show("cumsum/softmax", (x.cumsum(2), F.softmax(x, 1), F.log_softmax(x, -1)))
show("transpose/permute", (x.transpose(1, 3), x.permute(0, 2, 3, 1)))
show("contiguous channels_last", x.contiguous(memory_format=torch.channels_last))
show("expand/repeat", (torch.empty(3, 1, device=M).expand(3, 4), torch.empty(3, 1, device=M).repeat(2, 5)))
show("index_select", x.index_select(1, torch.empty(2, dtype=torch.long, device=M)))
show("advanced index", x[:, torch.empty(4, dtype=torch.long, device=M)])
show("masked_fill", x.masked_fill(torch.empty(8, 1, 32, 32, dtype=torch.bool, device=M), 0.0))
show("where", torch.where(torch.empty(3, 1, dtype=torch.bool, device=M), torch.empty(1, 4, device=M), 0.0))
show("type promotion", torch.empty(2, device=M, dtype=torch.int32) + torch.empty(2, device=M, dtype=torch.float16))
show("cross_entropy", F.cross_entropy(torch.empty(6, 10, device=M), torch.empty(6, dtype=torch.long, device=M)))
show("mse none", F.mse_loss(x, x, reduction="none"))

model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                      nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(M)
total = 0
h = torch.empty(16, 3, 64, 64, device=M)
for layer in model:
    h = layer(h)
    total += h.numel() * h.element_size()
print("activation bytes", total, "params", sum(p.numel() for p in model.parameters()))

for name, fn in [("nonzero", lambda: torch.empty(3, device=M).nonzero()),
                 ("unique", lambda: torch.unique(torch.empty(3, device=M))),
                 ("item", lambda: torch.empty((), device=M).item()),
                 ("bool", lambda: bool(torch.empty((), device=M))),
                 ("masked_select", lambda: torch.empty(3, device=M).masked_select(
                     torch.empty(3, dtype=torch.bool, device=M))),
                 ("shape mismatch", lambda: torch.empty(2, 3, device=M) + torch.empty(4, 3, device=M))]:
    try:
        r = fn()
        print(f"{name:22s} ok", tuple(r.shape) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(f"{name:22s} {type(e).__name__}: {str(e)[:70]}")

"""Default initialisation of many layer types under one seed, as a model-summary script prints it: each
parameter's shape, mean, std, extremes and first values, and a forward pass on seeded inputs."""
import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)


def stats(name, t):
    t = t.detach()
    print(f"{name:<34} {str(tuple(t.shape)):<16} mean={t.mean().item():.4f} std={t.std().item():.4f} "
          f"min={t.min().item():.4f} max={t.max().item():.4f}")


def summarize(tag, module):
    print(f"== {tag}: {module.__class__.__name__} "
          f"params={sum(p.numel() for p in module.parameters())}")
    for name, p in module.named_parameters():
        if p.numel() > 1:
            stats(f"{tag}.{name}", p)
        else:
            print(f"{tag}.{name} {p.item():.4f}")
    for name, b in module.named_buffers():
        print(f"{tag}.buffer.{name} {b.dtype} {b.flatten()[:4].tolist()}")


torch.manual_seed(0)
layers = {
    "fc": nn.Linear(12, 7),
    "fc_nobias": nn.Linear(5, 3, bias=False),
    "conv1d": nn.Conv1d(3, 4, 5, padding=2),
    "conv2d": nn.Conv2d(3, 6, 3, stride=2, groups=3),
    "conv3d": nn.Conv3d(2, 3, (2, 3, 3)),
    "deconv2d": nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1),
    "bn": nn.BatchNorm2d(6),
    "ln": nn.LayerNorm(8),
    "emb": nn.Embedding(20, 6, padding_idx=0),
    "bilinear": nn.Bilinear(3, 4, 2),
    "prelu": nn.PReLU(3),
}
for tag, m in layers.items():
    summarize(tag, m)
print("emb padding row", layers["emb"].weight[0].tolist())
print("fc weight[0]", layers["fc"].weight[0, :5])
print("conv2d weight[0,0]", layers["conv2d"].weight[0, 0])

torch.manual_seed(1)
rnns = {
    "rnn": nn.RNN(4, 5, num_layers=2, nonlinearity="relu"),
    "gru": nn.GRU(4, 3, batch_first=True, bidirectional=True),
    "lstm": nn.LSTM(4, 6, proj_size=2),
    "lstm_cell": nn.LSTMCell(3, 4),
    "gru_cell": nn.GRUCell(3, 2),
}
for tag, m in rnns.items():
    summarize(tag, m)

torch.manual_seed(2)
mha = nn.MultiheadAttention(8, 2, bias=True)
summarize("mha", mha)
mha_kv = nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True, batch_first=True)
summarize("mha_kv", mha_kv)
enc = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
summarize("enc", enc)

torch.manual_seed(3)
x = torch.randn(2, 3, 9)
print("conv1d out", layers["conv1d"](x).sum().item().__round__(4))
img = torch.randn(1, 3, 8, 8)
y = layers["conv2d"](img)
print("conv2d out", tuple(y.shape), round(y.mean().item(), 4), round(y.std().item(), 4))
bn = layers["bn"]
bn.train()
z = bn(y)
print("bn running_mean", bn.running_mean)
print("bn running_var", bn.running_var)
print("bn batches", bn.num_batches_tracked.item())
vol = torch.randn(1, 2, 3, 5, 5)
print("conv3d out", tuple(layers["conv3d"](vol).shape), round(layers["conv3d"](vol).abs().sum().item(), 4))
up = layers["deconv2d"](torch.randn(1, 4, 3, 3))
print("deconv out", tuple(up.shape), round(up.sum().item(), 4))
seq = torch.randn(7, 2, 4)
out, h = rnns["rnn"](seq)
print("rnn out", tuple(out.shape), round(out.sum().item(), 4), round(h.norm().item(), 4))
out, h = rnns["gru"](seq.transpose(0, 1))
print("gru out", tuple(out.shape), out[0, -1])
out, (h, c) = rnns["lstm"](seq)
print("lstm out", tuple(out.shape), tuple(h.shape), tuple(c.shape), round(c.sum().item(), 4))
tokens = torch.randint(0, 20, (2, 5))
print("tokens", tokens.tolist())
print("emb out", layers["emb"](tokens).sum(-1))
q = torch.randn(4, 2, 8)
attn_out, attn_w = mha(q, q, q)
print("mha out", round(attn_out.sum().item(), 4), attn_w[0])
kq = torch.randn(2, 4, 8)
out_kv, w_kv = mha_kv(kq, torch.randn(2, 6, 5), torch.randn(2, 6, 3))
print("mha_kv", tuple(out_kv.shape), tuple(w_kv.shape), round(out_kv.sum().item(), 4))
enc.eval()
print("enc out", enc(kq)[0, 0])
print("bilinear", layers["bilinear"](torch.randn(3, 3), torch.randn(3, 4)))

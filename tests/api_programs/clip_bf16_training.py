"""A small CLIP trained for a few steps under torch.autocast("cpu", dtype=torch.bfloat16): nn.TransformerEncoder
towers (batch_first, norm_first, causal text mask), conv patch embedding, the symmetric loss in float32, AdamW on
float32 master weights, and the same steps in float32 for comparison; dtypes of every intermediate printed."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
D = 16


def encoder(layers=1):
    layer = nn.TransformerEncoderLayer(
        D, 2, dim_feedforward=32, dropout=0.0, batch_first=True, norm_first=True, activation=F.gelu
    )
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class MiniCLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, D, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, D))
        self.vis = encoder()
        self.tok = nn.Embedding(20, D)
        self.pos = nn.Parameter(torch.randn(6, D) * 0.02)
        self.txt = encoder()
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(6))
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def encode_image(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1)
        return self.vis(x)[:, 0]

    def encode_text(self, t):
        x = self.tok(t) + self.pos
        x = self.txt(x, mask=self.causal, is_causal=True)
        return x[torch.arange(t.shape[0]), t.argmax(-1)]

    def forward(self, img, txt):
        i = F.normalize(self.encode_image(img), dim=-1)
        t = F.normalize(self.encode_text(txt), dim=-1)
        return self.logit_scale.exp().clamp(max=100) * i @ t.T


def clip_loss(logits):
    labels = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2


images = torch.randn(4, 3, 8, 8)
texts = torch.tensor([[1, 5, 7, 19, 0, 0], [1, 3, 19, 0, 0, 0], [1, 2, 4, 6, 8, 19], [1, 19, 0, 0, 0, 0]])
model = MiniCLIP()
ref = MiniCLIP()
ref.load_state_dict(model.state_dict())

with torch.autocast("cpu", dtype=torch.bfloat16):
    p = model.patch(images)
    e = model.encode_image(images)
    t = model.encode_text(texts)
    logits = model(images, texts)
print("dtypes", p.dtype, e.dtype, t.dtype, logits.dtype, clip_loss(logits.float()).dtype)
print("logits", logits.float().diag().tolist())

opts = [torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1) for m in (model, ref)]
for step in range(3):
    for m, opt, amp in ((model, opts[0], True), (ref, opts[1], False)):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            logits = m(images, texts)
        loss = clip_loss(logits.float())
        loss.backward()
        opt.step()
        if amp:
            amp_loss, amp_gnorm = loss.item(), torch.stack([q.grad.norm() for q in m.parameters()]).norm().item()
        else:
            ref_loss = loss.item()
    print(
        step,
        "bf16",
        round(amp_loss, 4) if step == 0 else "",
        "fp32",
        round(ref_loss, 4),
        "close",
        abs(amp_loss - ref_loss) < 0.5,
        "gnorm>0",
        amp_gnorm > 0,
    )

print("master dtypes", {q.dtype for q in model.parameters()}, model.logit_scale.grad.dtype)
drift = max((a - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))
print("param drift small", drift < 0.05)
model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    a = model.encode_text(texts)
    b = model.encode_text(texts)
print("eval deterministic", torch.equal(a, b), a.dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    try:
        model.txt(model.tok(texts), mask=torch.ones(6, 6, dtype=torch.long))
    except Exception as e:
        print(type(e).__name__, e)

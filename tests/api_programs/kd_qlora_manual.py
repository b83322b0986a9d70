"""QLoRA-style fine-tuning by hand: an int8/int4 frozen base stored as buffers, dequantized per forward, plus LoRA."""
import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def absmax_int8(w):
    scale = w.abs().amax(dim=1, keepdim=True) / 127
    return torch.round(w / scale).clamp(-128, 127).to(torch.int8), scale


def pack_int4(w):
    scale = w.abs().amax(dim=1, keepdim=True) / 7
    u = (torch.round(w / scale).clamp(-8, 7) + 8).to(torch.uint8)
    return u[:, 0::2] | (u[:, 1::2] << 4), scale


def unpack_int4(packed, scale):
    lo, hi = packed & 0xF, packed >> 4
    return (torch.stack([lo, hi], -1).flatten(-2).to(torch.float32) - 8) * scale


class QLoRALinear(nn.Module):
    def __init__(self, linear, bits=8, r=2, alpha=4):
        super().__init__()
        w = linear.weight.detach()
        self.bits = bits
        if bits == 8:
            q, s = absmax_int8(w)
        else:
            q, s = pack_int4(w)
        self.register_buffer("qweight", q)
        self.register_buffer("scale", s)
        self.bias = nn.Parameter(linear.bias.detach().clone(), requires_grad=False)
        self.A = nn.Parameter(torch.randn(r, w.shape[1]) * 0.01)
        self.B = nn.Parameter(torch.zeros(w.shape[0], r))
        self.scaling = alpha / r

    def weight(self):
        if self.bits == 8:
            return self.qweight.to(torch.float32) * self.scale
        return unpack_int4(self.qweight, self.scale)

    def forward(self, x):
        return F.linear(x, self.weight(), self.bias) + F.linear(F.linear(x, self.A), self.B) * self.scaling


base = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
x = torch.randn(32, 8)
y = base(x).argmax(1)
ref = base(x).detach()
for bits in (8, 4):
    q = nn.Sequential(QLoRALinear(base[0], bits), nn.ReLU(), QLoRALinear(base[2], bits))
    sd = q.state_dict()
    print(bits, {k: (str(v.dtype), tuple(v.shape)) for k, v in sd.items() if "qweight" in k or "scale" in k})
    nbytes = sum(v.numel() * v.element_size() for k, v in sd.items() if "qweight" in k)
    print("  bytes", nbytes, "fp32", sum(p.numel() * 4 for n, p in base.named_parameters() if "weight" in n))
    err = (q[0].weight() - base[0].weight).abs()
    print("  max err", round(err.max().item(), 4), "rel", round((err.norm() / base[0].weight.norm()).item(), 4))
    print("  logits err", round((q(x) - ref).abs().max().item(), 4))
    trainable = [n for n, p in q.named_parameters() if p.requires_grad]
    print("  trainable", trainable)
    opt = torch.optim.Adam([p for p in q.parameters() if p.requires_grad], lr=0.05)
    for step in range(20):
        opt.zero_grad()
        loss = F.mse_loss(q(x), ref)
        loss.backward()
        opt.step()
    print("  distilled mse", round(loss.item(), 4), "agree", round((q(x).argmax(1) == y).float().mean().item(), 4))
    print("  qweight untouched", q[0].qweight.grad is None, q[0].qweight.requires_grad)

# round-trip checks of the packing helpers
w = torch.tensor([[0.7, -0.7, 0.1, 0.0], [1.0, 0.5, -0.5, -1.0]])
p, s = pack_int4(w)
print(p.tolist(), s.flatten().round(decimals=4).tolist(), unpack_int4(p, s).round(decimals=4).tolist())
i8, s8 = absmax_int8(w)
print(i8.tolist(), i8.dtype, (i8.to(torch.float32) * s8).round(decimals=4).tolist())
print(torch.iinfo(torch.int8), torch.iinfo(torch.uint8).max, (torch.tensor([250], dtype=torch.uint8) + 10).tolist())

# fake quantization with a straight-through estimator for QAT-style distillation
t = torch.linspace(-1, 1, 7, requires_grad=True)
fq = torch.fake_quantize_per_tensor_affine(t, 0.25, 0, -4, 3)
fq.sum().backward()
print(fq.tolist(), t.grad.tolist())
t2 = torch.linspace(-1, 1, 5, requires_grad=True)
ste = t2 + (torch.round(t2 * 4) / 4 - t2).detach()
(ste * 2).sum().backward()
print(ste.tolist(), t2.grad.tolist())
try:
    torch.tensor([1, 2], dtype=torch.int8).float().requires_grad_().to(torch.int8).requires_grad_()
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Parameter(torch.zeros(2, dtype=torch.int8))
except Exception as e:
    print(type(e).__name__, e)

"""QLoRA simulated on the CPU: absmax int8 and packed 4-bit NF4-style base weights as buffers, fp32 adapters on top."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
NF4 = torch.tensor(
    [
        -1.0,
        -0.6962,
        -0.5251,
        -0.3949,
        -0.2844,
        -0.1848,
        -0.0911,
        0.0,
        0.0796,
        0.1609,
        0.2461,
        0.3379,
        0.4407,
        0.5626,
        0.7230,
        1.0,
    ]
)


def quantize_nf4(w, blocksize=8):
    flat = w.reshape(-1, blocksize)
    absmax = flat.abs().amax(dim=1, keepdim=True)
    normed = flat / absmax
    idx = (normed.unsqueeze(-1) - NF4).abs().argmin(dim=-1).to(torch.uint8)
    idx = idx.reshape(-1)
    packed = (idx[0::2] << 4) | idx[1::2]
    return packed, absmax.squeeze(1)


def dequantize_nf4(packed, absmax, shape, blocksize=8):
    hi = (packed >> 4) & 0x0F
    lo = packed & 0x0F
    idx = torch.stack([hi, lo], dim=1).reshape(-1).long()
    vals = NF4[idx].reshape(-1, blocksize) * absmax.unsqueeze(1)
    return vals.reshape(shape)


class QLoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, mode="nf4"):
        super().__init__()
        self.shape = tuple(base.weight.shape)
        self.mode = mode
        w = base.weight.detach()
        if mode == "nf4":
            packed, absmax = quantize_nf4(w)
            self.register_buffer("qweight", packed)
            self.register_buffer("absmax", absmax)
        else:
            scale = w.abs().amax(dim=1, keepdim=True) / 127
            self.register_buffer("qweight", torch.clamp(torch.round(w / scale), -128, 127).to(torch.int8))
            self.register_buffer("absmax", scale)
        self.register_buffer("bias", base.bias.detach().clone())
        self.lora_A = nn.Parameter(torch.randn(r, self.shape[1]) * 0.05)
        self.lora_B = nn.Parameter(torch.zeros(self.shape[0], r))
        self.scaling = alpha / r

    def dequantize(self):
        if self.mode == "nf4":
            return dequantize_nf4(self.qweight, self.absmax, self.shape)
        return self.qweight.float() * self.absmax

    def forward(self, x):
        return F.linear(x, self.dequantize(), self.bias) + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling


base = nn.Linear(16, 8)
for mode in ("nf4", "int8"):
    q = QLoraLinear(base, mode=mode)
    err = (q.dequantize() - base.weight).abs()
    print(
        mode,
        q.qweight.dtype,
        tuple(q.qweight.shape),
        "max err",
        round(err.max().item(), 4),
        "mean",
        round(err.mean().item(), 4),
    )
    print({k: (v.dtype, tuple(v.shape)) for k, v in q.state_dict().items()})
print("bytes", q.qweight.element_size() * q.qweight.numel(), base.weight.element_size() * base.weight.numel())

q = QLoraLinear(base)
x = torch.randn(6, 16)
y = base(x).detach() + 0.1 * torch.randn(6, 8)
opt = torch.optim.AdamW(q.parameters(), lr=0.02)
print("params", [n for n, _ in q.named_parameters()], "buffers", [n for n, _ in q.named_buffers()])
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(q(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))

# bit tricks on uint8
v = torch.tensor([0x12, 0xF0, 0x0F, 0xAB], dtype=torch.uint8)
print((v >> 4).tolist(), (v & 0x0F).tolist(), (v << 4).tolist(), (~v).tolist(), (v ^ 0xFF).tolist())
print(torch.bitwise_right_shift(v, 1).tolist(), torch.bitwise_left_shift(v.to(torch.int32), 9).tolist())
print((v.to(torch.int8)).tolist(), v.view(torch.int8).tolist(), torch.tensor([1.0, -2.5]).view(torch.int32).tolist())
print(
    torch.tensor([1, 2, 3, 4], dtype=torch.uint8).view(torch.int16).tolist(),
    torch.tensor([300, -5]).to(torch.uint8).tolist(),
)
print(
    torch.tensor([-129.6, 127.5, 0.5, -0.5, 2.5]).round().tolist(),
    torch.tensor([200.0, -200.0]).clamp(-128, 127).to(torch.int8).tolist(),
)

# quantize/dequantize in no_grad does not track
with torch.no_grad():
    packed, absmax = quantize_nf4(base.weight)
print(packed.requires_grad, absmax.requires_grad)
deq = dequantize_nf4(packed, absmax, (8, 16))
print(deq.requires_grad, deq.dtype)
# straight-through estimator for quant-aware adapters
w = base.weight.detach().clone().requires_grad_(True)
w_q = w + (dequantize_nf4(*quantize_nf4(w.detach()), (8, 16)) - w).detach()
w_q.sum().backward()
print("ste grad all ones", torch.equal(w.grad, torch.ones_like(w)))
try:
    packed.float() >> 1
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.tensor([1, 2, 3], dtype=torch.uint8).view(torch.int16)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.tensor([1.5]).bitwise_and(1)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    q.qweight.requires_grad_(True)
except RuntimeError as e:
    print(type(e).__name__, e)

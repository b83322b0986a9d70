"""Normalization and gated MLPs of modern decoders: hand-written RMSNorm (float32 upcast, type_as), nn.RMSNorm and
F.rms_norm, Gemma's (1 + weight) variant, LayerNorm with bias=False, QK-norm, SwiGLU/GeGLU/ReGLU with fused w13
projections split by chunk, the 2/3 * 4d hidden size rounded to multiple_of, and bfloat16 behaviour of each."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"


class GemmaRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        out = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return (out * (1.0 + self.weight.float())).type_as(x)


D = 16
x = torch.sin(torch.arange(2 * 5 * D, dtype=torch.float32).reshape(2, 5, D) * 0.41) * 3 + 0.5
w = torch.linspace(0.5, 1.5, D)

ln = LlamaRMSNorm(D)
with torch.no_grad():
    ln.weight.copy_(w)
print(ln)
y = ln(x)
print("rmsnorm row:", y[0, 0, :6])
print("rms of normalized:", (y / w).pow(2).mean(-1).sqrt()[0])
mod = nn.RMSNorm(D, eps=1e-6)
print(mod, "weight init ones:", torch.equal(mod.weight, torch.ones(D)))
with torch.no_grad():
    mod.weight.copy_(w)
print("nn.RMSNorm == hand-written:", torch.allclose(mod(x), y, atol=1e-6))
print("F.rms_norm == hand-written:", torch.allclose(F.rms_norm(x, (D,), w, eps=1e-6), y, atol=1e-6))
print("F.rms_norm eps=None uses finfo.eps:",
      torch.allclose(F.rms_norm(x, (D,)), x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True)
                                                          + torch.finfo(torch.float32).eps), atol=1e-6))
print("two-dim normalized_shape:", F.rms_norm(x, (5, D))[1, 0, :3])
print("no affine:", nn.RMSNorm(D, elementwise_affine=False).weight)
try:
    F.rms_norm(x, (8,))
except RuntimeError as e:
    print("RuntimeError:", e)

gemma = GemmaRMSNorm(D)
print("gemma zero-init == plain rms:", torch.allclose(gemma(x), F.rms_norm(x, (D,), eps=1e-6), atol=1e-6))

# LayerNorm without bias (OLMo, nanoGPT's bias=False)
lnb = nn.LayerNorm(D, bias=False)
print(lnb, "bias:", lnb.bias, "params:", [n for n, _ in lnb.named_parameters()])
print("layernorm(no bias) row mean/std:", round(lnb(x)[0, 0].mean().item(), 4),
      round(lnb(x)[0, 0].std(unbiased=False).item(), 4))
print("F.layer_norm bias None:", torch.allclose(F.layer_norm(x, (D,), torch.ones(D), None), lnb(x), atol=1e-6))

# bfloat16: the upcast matters
xb = x.to(torch.bfloat16)
ln_b = LlamaRMSNorm(D).to(torch.bfloat16)
yb = ln_b(xb)
naive = xb * torch.rsqrt(xb.pow(2).mean(-1, keepdim=True) + 1e-6)
print("bf16 out dtype:", yb.dtype, "weight dtype:", ln_b.weight.dtype)
print(f"upcast err {(yb.float() - F.rms_norm(x, (D,), eps=1e-6)).abs().max().item():.3f} "
      f"naive err {(naive.float() - F.rms_norm(x, (D,), eps=1e-6)).abs().max().item():.2f}")
print("nn.RMSNorm bf16:", nn.RMSNorm(D, dtype=torch.bfloat16)(xb).dtype)


# gated MLPs
def fill(lin, salt):
    with torch.no_grad():
        lin.weight.copy_(torch.cos(torch.arange(lin.weight.numel(), dtype=torch.float32) * 0.23 + salt)
                         .view_as(lin.weight) * 0.3)
    return lin


def llama_hidden(dim, multiple_of=8, ffn_dim_multiplier=None):
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


print("hidden sizes:", llama_hidden(16), llama_hidden(4096, 256), llama_hidden(4096, 1024, 1.3))
H = llama_hidden(D)


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden, act="silu"):
        super().__init__()
        self.w1, self.w3, self.w2 = (fill(nn.Linear(dim, hidden, bias=False), 0.0),
                                     fill(nn.Linear(dim, hidden, bias=False), 1.0),
                                     fill(nn.Linear(hidden, dim, bias=False), 2.0))
        self.act = {"silu": F.silu, "gelu": lambda t: F.gelu(t, approximate="tanh"), "relu": F.relu}[act]

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))


mlp = SwiGLU(D, H)
out = mlp(x)
print("swiglu:", tuple(out.shape), out[0, 0, :4])
fused = nn.Linear(D, 2 * H, bias=False)
with torch.no_grad():
    fused.weight.copy_(torch.cat([mlp.w1.weight, mlp.w3.weight], 0))
gate, up = fused(x).chunk(2, dim=-1)
print("fused w13 == separate:", torch.allclose(mlp.w2(F.silu(gate) * up), out, atol=1e-5))
print("silu == x*sigmoid:", torch.allclose(F.silu(gate), gate * torch.sigmoid(gate), atol=1e-6))
print("F.glu order (a * sigmoid(b)):", torch.allclose(F.glu(torch.cat([up, gate], -1), -1),
                                                     up * torch.sigmoid(gate), atol=1e-6))
for act in ("gelu", "relu"):
    m = SwiGLU(D, H, act)
    print(f"{act}GLU:", m(x)[1, 4, :4])
print("gelu tanh vs erf max diff:", f"{(F.gelu(gate, approximate='tanh') - F.gelu(gate)).abs().max().item():.4f}")

# QK-norm: RMSNorm over head_dim before attention
q = x.view(2, 5, 4, 4).transpose(1, 2)
qn = F.rms_norm(q, (4,), eps=1e-6)
print("qk-norm per-head rms:", qn.pow(2).mean(-1).sqrt()[0, 0])

# gradients of RMSNorm's weight and input
xg = x.clone().requires_grad_()
mod.zero_grad()
mod(xg).pow(2).sum().backward()
print("rmsnorm weight grad:", mod.weight.grad[:4])
print("input grad row sum:", xg.grad[0, 0].sum().item() < 1e-3, xg.grad.shape)
print("grad_fn:", F.rms_norm(xg, (D,), w).grad_fn.name(), nn.RMSNorm(D)(xg).grad_fn.name())

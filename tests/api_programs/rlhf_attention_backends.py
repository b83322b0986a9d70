"""Choosing the attention kernel in an RLHF model on the CPU: a causal self-attention policy block whose grad_fn
names the flash kernel by default and the math path under sdpa_kernel(SDPBackend.MATH), a reward model's
gradient penalty on input embeddings (double backward, run under the math backend), the flash-only refusals of
3-D, dropout and mismatched-head inputs with the warnings that say why, the no-backend error, and the
torch.backends.cuda switches that sdpa_kernel sets."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
B, T, D, H = 2, 5, 16, 4


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x, pad_mask=None, dropout_p=0.0):
        q, k, v = self.qkv(x).split(D, -1)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        mask = None
        if pad_mask is not None:
            mask = torch.ones(T, T, dtype=torch.bool).tril()[None, None] & pad_mask[:, None, None, :]
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None, dropout_p=dropout_p)
        return self.proj(y.transpose(1, 2).reshape(B, T, D)), y


attn = CausalSelfAttention()
x = torch.randn(B, T, D)
pad = torch.tensor([[True] * 5, [False, False, True, True, True]])
out, y = attn(x)
print("default:", y.grad_fn.name(), tuple(out.shape))
with sdpa_kernel(SDPBackend.MATH):
    out_m, y_m = attn(x)
    print("math:", y_m.grad_fn.name(), "same values:", torch.allclose(out, out_m, atol=1e-6))
    _, y_pad = attn(x, pad)
    print(
        "math + padding mask:",
        y_pad.grad_fn.name(),
        "row 1 first query:",
        y_pad[1, 0, 0, :3].round(decimals=4).tolist(),
    )
_, y_pad_flash = attn(x, pad)
print("flash + padding mask:", y_pad_flash.grad_fn.name(), torch.allclose(y_pad, y_pad_flash, atol=1e-6))
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
    print("flash+math:", attn(x)[1].grad_fn.name(), "dropout falls back:", attn(x, dropout_p=0.1)[1].grad_fn.name())
with torch.no_grad():
    print("no_grad grad_fn:", attn(x)[1].grad_fn)

reward_head = nn.Linear(D, 1)
emb = x.clone().requires_grad_(True)
with sdpa_kernel(SDPBackend.MATH):
    h, _ = attn(emb)
    r = reward_head(h[:, -1]).squeeze(-1)
    (g,) = torch.autograd.grad(r.sum(), emb, create_graph=True)
    penalty = g.pow(2).sum(dim=(1, 2)).mean()
    penalty.backward()
print("rewards:", r.detach().round(decimals=4).tolist(), "penalty:", round(penalty.item(), 4))
print("penalty grad norm:", round(attn.qkv.weight.grad.norm().item(), 4), g.grad_fn.name())

print("switches in MATH:", end=" ")
with sdpa_kernel(SDPBackend.MATH):
    print(
        torch.backends.cuda.flash_sdp_enabled(),
        torch.backends.cuda.math_sdp_enabled(),
        torch.backends.cuda.mem_efficient_sdp_enabled(),
    )
print("restored:", torch.backends.cuda.flash_sdp_enabled(), torch.backends.cuda.math_sdp_enabled())
torch.backends.cuda.enable_flash_sdp(False)
print("flash switched off:", attn(x)[1].grad_fn.name())
torch.backends.cuda.enable_flash_sdp(True)

q = torch.randn(B, H, T, D // H)
cases = {
    "3-D": lambda: F.scaled_dot_product_attention(q[0], q[0], q[0]),
    "dropout": lambda: F.scaled_dot_product_attention(q, q, q, dropout_p=0.2),
    "heads": lambda: F.scaled_dot_product_attention(q, q[:, :1], q[:, :1]),
    "gqa": lambda: F.scaled_dot_product_attention(q, q[:, :2], q[:, :2], enable_gqa=True),
    "3-D mask": lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(B, T, T)),
    "value dim": lambda: F.scaled_dot_product_attention(q, q, torch.randn(B, H, T, 2)),
}
for backends in [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]:
    for name, f in cases.items():
        with sdpa_kernel(backends), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                res = f().shape
            except RuntimeError as e:
                res = f"RuntimeError {e}"
        print(backends, name, res, [str(m.message).split(" (Triggered")[0] for m in w])

"""LoRA on nn.MultiheadAttention: a parametrized in_proj_weight, a wrapped out_proj, and GPT-2 Conv1D fan_in_fan_out."""

import torch

nn = torch.nn
F = torch.nn.functional
P = torch.nn.utils.parametrize

torch.manual_seed(0)
E, H = 8, 2


class LowRankDelta(nn.Module):
    def __init__(self, rows, cols, r=2, alpha=4):
        super().__init__()
        self.A = nn.Parameter(torch.randn(r, cols) * 0.1)
        self.B = nn.Parameter(torch.randn(rows, r) * 0.1)
        self.scaling = alpha / r

    def forward(self, W):
        return W + self.B @ self.A * self.scaling


mha = nn.MultiheadAttention(E, H, batch_first=True, dropout=0.0)
x = torch.randn(2, 5, E)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
ref, ref_w = mha(x, x, x, key_padding_mask=pad)
print("weights", tuple(ref_w.shape), ref_w[1, 0].round(decimals=4).tolist())
mha.requires_grad_(False)
P.register_parametrization(mha, "in_proj_weight", LowRankDelta(3 * E, E))
print(type(mha).__name__, [n for n, p in mha.named_parameters() if p.requires_grad])
out, w = mha(x, x, x, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
print("per-head weights", tuple(w.shape), "changed", not torch.allclose(out, ref))
out.pow(2).mean().backward()
delta = mha.parametrizations.in_proj_weight[0]
print("grad A", round(delta.A.grad.norm().item(), 4), "q rows of grad B", round(delta.B.grad[:E].abs().sum().item(), 4))
o_none, w_none = mha(x, x, x, need_weights=False)
print("need_weights False", w_none, tuple(o_none.shape))
mha.eval()
with torch.no_grad():
    o_eval, _ = mha(x, x, x, key_padding_mask=pad)
print(
    "eval finite",
    bool(torch.isfinite(o_eval).all()),
    "eval masked rows equal",
    torch.allclose(o_eval[0], out[0].detach(), atol=1e-5),
)
P.remove_parametrizations(mha, "in_proj_weight", leave_parametrized=True)
print(type(mha).__name__, isinstance(mha.in_proj_weight, nn.Parameter), mha.in_proj_weight.requires_grad)

# wrap out_proj: MHA reads out_proj.weight directly, so a wrapped module must keep weight/bias attributes
print(type(mha.out_proj).__name__, mha.out_proj)
q, k, v = mha.in_proj_weight.chunk(3)
print("chunks", tuple(q.shape), torch.equal(torch.cat([q, k, v]), mha.in_proj_weight))
attn_mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
o_c, w_c = mha(x, x, x, attn_mask=attn_mask)
print("causal upper zeros", w_c[0].triu(1).abs().sum().item())
try:
    mha(x, x, x, attn_mask=torch.ones(4, 4, dtype=torch.bool))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    mha(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
except (RuntimeError, AssertionError) as e:
    print(type(e).__name__, e)
try:
    nn.MultiheadAttention(10, 3)
except AssertionError as e:
    print(type(e).__name__, e)


class Conv1D(nn.Module):
    """GPT-2's transposed linear: weight is (nx, nf)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def transpose(weight, fan_in_fan_out):
    return weight.T if fan_in_fan_out else weight


c_attn = Conv1D(3 * E, E)
lora_A = torch.randn(2, E) * 0.1
lora_B = torch.randn(3 * E, 2) * 0.1
h = torch.randn(2, 5, E)
y = c_attn(h)
print("conv1d", tuple(y.shape), type(y.size()).__name__, y.size()[:-1] + (3,))
with torch.no_grad():
    lora_out = y + h @ lora_A.T @ lora_B.T
    delta = transpose(lora_B @ lora_A, fan_in_fan_out=True)
    c_attn.weight += delta
    merged = c_attn(h)
print("fan_in_fan_out merge", tuple(delta.shape), torch.allclose(merged, lora_out, atol=1e-6))
print(torch.addmm(torch.ones(2), torch.eye(2), torch.full((2, 2), 2.0), beta=0.5, alpha=3).tolist())
try:
    torch.addmm(torch.ones(3), torch.eye(2), torch.ones(2, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    c_attn.weight.T.view(-1)
except RuntimeError as e:
    print(type(e).__name__, e)

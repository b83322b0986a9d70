"""Packed variable-length attention as LLM training code writes it: sequences concatenated into one (T, H, D)
tensor with cumulative offsets, `torch.nn.attention.varlen.varlen_attn` where a GPU kernel exists, and a padded
scaled_dot_product_attention fallback on the CPU, checked against a per-sequence loop."""
import torch
from torch.nn.attention.varlen import AuxRequest, varlen_attn
from torch.func import rearrange

F = torch.nn.functional
torch.manual_seed(0)

lengths = torch.tensor([3, 5, 2])
heads, dim = 2, 8
total = int(lengths.sum())
cu_seqlens = torch.zeros(len(lengths) + 1, dtype=torch.int32)
cu_seqlens[1:] = lengths.cumsum(0)
max_len = int(lengths.max())
print("cu_seqlens", cu_seqlens.tolist(), "max", max_len, "total", total)

q = torch.randn(total, heads, dim, requires_grad=True)
k = torch.randn(total, heads, dim, requires_grad=True)
v = torch.randn(total, heads, dim, requires_grad=True)


def padded_attention(q, k, v, causal):
    """Unpack to (B, H, L, D) with a key-padding mask, attend, pack back."""
    batch = len(lengths)
    pos = torch.arange(max_len)
    valid = pos[None, :] < lengths[:, None]
    seq_id = torch.repeat_interleave(torch.arange(batch), lengths)
    offset = torch.arange(total) - cu_seqlens[:-1].long()[seq_id]
    pad = lambda t: torch.zeros(batch, max_len, heads, dim).index_put((seq_id, offset), t)
    qp, kp, vp = (rearrange(pad(t), "b l h d -> b h l d") for t in (q, k, v))
    mask = valid[:, None, None, :]
    if causal:
        mask = mask & torch.ones(max_len, max_len, dtype=torch.bool).tril()
    out = F.scaled_dot_product_attention(qp, kp, vp, attn_mask=mask)
    return rearrange(out, "b h l d -> b l h d")[seq_id, offset]


def loop_attention(q, k, v, causal):
    outs = []
    for a, b in zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist()):
        qs, ks, vs = (rearrange(t[a:b], "l h d -> h l d") for t in (q, k, v))
        outs.append(rearrange(F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal), "h l d -> l h d"))
    return torch.cat(outs)


for causal in (False, True):
    window = (-1, 0) if causal else (-1, -1)
    try:
        out = varlen_attn(q, k, v, cu_seqlens, cu_seqlens, max_len, max_len, window_size=window)
        print("varlen kernel ran")
    except NotImplementedError as e:
        print("varlen_attn on", q.device.type, "->", type(e).__name__, str(e).split(" This")[0])
        out = padded_attention(q, k, v, causal)
    ref = loop_attention(q, k, v, causal)
    print("causal" if causal else "full", tuple(out.shape), "max diff", round((out - ref).abs().max().item(), 4),
          "sum", round(out.sum().item(), 4))

out = padded_attention(q, k, v, True)
out.square().sum().backward()
print("grad norms", round(q.grad.norm().item(), 4), round(k.grad.norm().item(), 4), round(v.grad.norm().item(), 4))
print("grad of padding-free rows only:", q.grad.shape == q.shape)

print("-- API checks")
print("AuxRequest", AuxRequest(), AuxRequest(lse=True).lse, AuxRequest._fields)
for kq, kwargs in [(torch.randn(total, 3, dim), {}), (torch.randn(total, 3, dim), {"enable_gqa": True}),
                   (torch.randn(total, 1, dim), {"enable_gqa": True, "return_aux": AuxRequest(lse=True)})]:
    try:
        varlen_attn(q, kq, kq, cu_seqlens, cu_seqlens, max_len, max_len, **kwargs)
    except Exception as e:
        print(type(e).__name__, str(e).split(" This")[0])

"""FlexAttention as gpt-fast/torchtune-style code uses it (eager, on the CPU): mask_mods for causal, sliding-window,
prefix-LM and document masking (indexing a document-id tensor), combined with and_masks/or_masks, create_mask and
create_block_mask with its BlockMask picture, sparsity and block lists, score_mods for ALiBi, soft-capping and
relative bias, GQA, return_lse/return_aux, gradients checked against scaled_dot_product_attention, and the errors."""

import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import (AuxRequest, and_masks, create_block_mask, create_mask,
                                               flex_attention, noop_mask, or_masks)

warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
warnings.filterwarnings("ignore", message="return_lse is deprecated")
torch.set_printoptions(precision=4, sci_mode=False)

B, H, S, D = 2, 4, 16, 8


def det(shape, a, b=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * a + b).reshape(shape)


q, k, v = det((B, H, S, D), 0.31), det((B, H, S, D), 0.17, 1.0), det((B, H, S, D), 0.23, 2.0)


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def sliding_window(b, h, q_idx, kv_idx):
    return q_idx - kv_idx <= 4


def prefix_lm(b, h, q_idx, kv_idx):
    return kv_idx < 3


document_id = torch.tensor([0] * 5 + [1] * 7 + [2] * 4)


def document(b, h, q_idx, kv_idx):
    return document_id[q_idx] == document_id[kv_idx]


print("create_mask causal:\n", create_mask(causal, 1, 1, 5, 5, device="cpu").int()[0, 0])
sw_causal = and_masks(causal, sliding_window)
print("sliding window row 10:", create_mask(sw_causal, None, None, S, S, "cpu")[0, 0, 10].int().tolist())
plm = or_masks(causal, prefix_lm)
print("prefix-LM row 1:", create_mask(plm, 1, 1, S, S, "cpu")[0, 0, 1].int().tolist())
print("noop mask all true:", create_mask(noop_mask, 1, 1, 3, 4, "cpu").all().item())

bm = create_block_mask(causal, B=None, H=None, Q_LEN=S, KV_LEN=S, device="cpu", BLOCK_SIZE=4)
print(bm)
print("shape:", bm.shape, "BLOCK_SIZE:", bm.BLOCK_SIZE, f"sparsity: {bm.sparsity():.2f}")
print("kv_num_blocks:", bm.kv_num_blocks.tolist(), "full_kv_num_blocks:", bm.full_kv_num_blocks.tolist())
print("full_kv_indices row 3:", bm.full_kv_indices[0, 0, 3].tolist(), bm.kv_indices.dtype)
print("q_num_blocks:", bm.q_num_blocks.tolist())
print("to_dense:\n", bm.to_dense()[0, 0])
print(repr(bm))

doc_causal = and_masks(causal, document)
dbm = create_block_mask(doc_causal, 1, 1, S, S, device="cpu", BLOCK_SIZE=4)
print(dbm)
print(f"document sparsity {dbm.sparsity():.2f}  numel {dbm.numel()}")
big = create_block_mask(sliding_window, 2, 1, 256, 256, device="cpu")
per_batch = create_block_mask(doc_causal, 2, 2, S, S, device="cpu", BLOCK_SIZE=4)
sliced = per_batch[1, -1]
print("sliced:", tuple(sliced.kv_num_blocks.shape), sliced.shape, sliced.mask_mod.__name__,
      tuple(per_batch[:, :, torch.tensor([0, 3])].kv_indices.shape))
print("default block:", big.BLOCK_SIZE, big.shape, f"{big.sparsity():.2f}")

# outputs against scaled_dot_product_attention with the same dense mask
out = flex_attention(q, k, v, block_mask=bm)
ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("causal == sdpa:", torch.allclose(out, ref, atol=1e-5), tuple(out.shape), out.dtype)
dense_doc = create_mask(doc_causal, 1, 1, S, S, "cpu")
out_doc = flex_attention(q, k, v, block_mask=dbm)
print("document == sdpa(bool mask):", torch.allclose(out_doc, F.scaled_dot_product_attention(
    q, k, v, attn_mask=dense_doc), atol=1e-5))
print("no mask == sdpa:", torch.allclose(flex_attention(q, k, v), F.scaled_dot_product_attention(q, k, v),
                                         atol=1e-5))
print("out[0,1,5,:4]:", out_doc[0, 1, 5, :4])


# score mods
def alibi(score, b, h, q_idx, kv_idx):
    slope = torch.exp2(-((h + 1) * 8.0 / H))
    return score - slope * (q_idx - kv_idx)


def softcap(score, b, h, q_idx, kv_idx):
    return 2.0 * torch.tanh(score / 2.0)


rel_bias = det((2 * S - 1,), 0.5) * 0.3


def relative(score, b, h, q_idx, kv_idx):
    return score + rel_bias[q_idx - kv_idx + S - 1]


slopes = torch.exp2(-(torch.arange(1, H + 1) * 8.0 / H))
pos = torch.arange(S)
alibi_bias = -slopes[:, None, None] * (pos[:, None] - pos[None, :])
alibi_mask = alibi_bias.masked_fill(~torch.ones(S, S, dtype=torch.bool).tril(), float("-inf"))
out_alibi = flex_attention(q, k, v, score_mod=alibi, block_mask=bm)
print("alibi == sdpa(float mask):", torch.allclose(out_alibi, F.scaled_dot_product_attention(
    q, k, v, attn_mask=alibi_mask), atol=1e-5))
scale = D ** -0.5
capped = 2.0 * torch.tanh(q @ k.transpose(-2, -1) * scale / 2.0)
out_cap = flex_attention(q, k, v, score_mod=softcap)
print("softcap == manual:", torch.allclose(out_cap, capped.softmax(-1) @ v, atol=1e-5))
print("softcap mask from create_mask:", create_mask(softcap, 1, 1, 2, 2, "cpu").tolist())
out_rel = flex_attention(q, k, v, score_mod=relative, block_mask=bm, scale=0.5)
print("relative bias + scale=0.5:", out_rel[1, 2, 7, :4])

# GQA and the logsumexp
kv_heads = 2
k2, v2 = k[:, :kv_heads], v[:, :kv_heads]
out_gqa, lse = flex_attention(q, k2, v2, block_mask=bm, enable_gqa=True, return_lse=True)
print("gqa == sdpa enable_gqa:", torch.allclose(out_gqa, F.scaled_dot_product_attention(
    q, k2, v2, is_causal=True, enable_gqa=True), atol=1e-5))
kk = k2.repeat_interleave(2, 1)
manual_lse = (q @ kk.transpose(-2, -1) * scale).masked_fill(
    ~torch.ones(S, S, dtype=torch.bool).tril(), float("-inf")).logsumexp(-1)
print("lse:", tuple(lse.shape), lse.dtype, torch.allclose(lse, manual_lse, atol=1e-5), lse[0, 0, :4])
out_aux, aux = flex_attention(q, k, v, block_mask=bm, return_aux=AuxRequest(lse=True))
print("aux fields:", type(aux).__name__, aux._fields, aux.max_scores,
      torch.allclose(aux.lse, flex_attention(q, k, v, block_mask=bm, return_lse=True)[1]))

# fully masked rows give zeros
def none_visible(b, h, q_idx, kv_idx):
    return (q_idx >= 4) & (kv_idx <= q_idx)


out_none, lse_none = flex_attention(q, k, v, block_mask=create_block_mask(none_visible, 1, 1, S, S, "cpu", 4),
                                    return_lse=True)
print("masked rows zero:", out_none[0, 0, :4].abs().sum().item(), "lse:", lse_none[0, 0, :5].tolist())

# CPU flex attention is inference-only: inputs that require grad are refused (even under no_grad)
qg = q.clone().requires_grad_()
try:
    flex_attention(qg, k, v, score_mod=alibi, block_mask=bm)
except NotImplementedError as e:
    print("NotImplementedError:", e)
print("detached ok:", torch.allclose(flex_attention(qg.detach(), k, v, score_mod=alibi, block_mask=bm), out_alibi))
lowp = flex_attention(q, k.bfloat16(), v.bfloat16(), block_mask=bm)
print("bf16 key/value allowed:", lowp.dtype, torch.allclose(lowp, out, atol=0.02))
bf = flex_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), block_mask=bm)
print("bf16:", bf.dtype, torch.allclose(bf.float(), out, atol=0.02))

for name, fn in [
    ("heads", lambda: flex_attention(q, k2, v2)),
    ("embed", lambda: flex_attention(q, k[..., :4], v)),
    ("length", lambda: flex_attention(q[:, :, :8], k[:, :, :8], v[:, :, :8], block_mask=bm)),
    ("3-D", lambda: flex_attention(q[0], k[0], v[0])),
    ("lse+aux", lambda: flex_attention(q, k, v, return_lse=True, return_aux=AuxRequest(lse=True))),
    ("score_mod to create_block_mask", lambda: create_block_mask(softcap, 1, 1, 4, 4, "cpu")),
    ("or_masks", lambda: or_masks(causal, 3)),
    ("sliced mask_mod", lambda: flex_attention(q[:1, :1], k[:1, :1], v[:1, :1], block_mask=sliced)),
    ("max_scores on cpu", lambda: flex_attention(q, k, v, return_aux=AuxRequest(max_scores=True))),
]:
    try:
        fn()
        print(name, "no error")
    except (ValueError, RuntimeError, NotImplementedError, AssertionError) as e:
        print(name, type(e).__name__, str(e).split(" at 0x")[0][:110])

"""Reduced-precision policy forwards as RLHF trainers run them on the CPU: a bfloat16 model whose logits are
upcast with .float() before log_softmax (and what the log-probs lose without it), autocast regions whose outputs
come back in bfloat16, log_softmax(dtype=), the selective log-softmax that loops over rows to save memory, the
entropy-from-logits chunked over the sequence, and the dtype errors of mixing bf16 and float32 parameters."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, B, T = 32, 16, 2, 5
model = nn.Sequential(nn.Embedding(V, D), nn.Linear(D, D), nn.GELU(), nn.Linear(D, V))
ids = torch.randint(0, V, (B, T))
with torch.no_grad():
    ref32 = model(ids)
bf = model.to(torch.bfloat16)
print("param dtypes:", {p.dtype for p in bf.parameters()}, "is model:", bf is model)
logits = bf(ids)
print("logits:", logits.dtype, tuple(logits.shape), logits.grad_fn.name())

labels = ids[:, 1:]
lp_bf = torch.gather(logits[:, :-1].log_softmax(-1), 2, labels[..., None]).squeeze(-1)
lp_up = torch.gather(logits[:, :-1].float().log_softmax(-1), 2, labels[..., None]).squeeze(-1)
lp_dt = torch.gather(F.log_softmax(logits[:, :-1], -1, dtype=torch.float32), 2, labels[..., None]).squeeze(-1)
print("dtypes:", lp_bf.dtype, lp_up.dtype, lp_dt.dtype)
print("upcast == dtype arg:", torch.allclose(lp_up, lp_dt))
print("bf16 error vs upcast (> 1e-3):", bool((lp_bf.float() - lp_up).abs().max() > 1e-3))
print(
    "vs fp32 model:",
    round(
        (lp_up - torch.gather(ref32[:, :-1].log_softmax(-1), 2, labels[..., None]).squeeze(-1)).abs().max().item(), 1
    ),
)


def selective_log_softmax(logits, index):
    if logits.dtype in (torch.float32, torch.float64):
        sel = torch.gather(logits, -1, index.unsqueeze(-1)).squeeze(-1)
        lse = torch.stack([torch.logsumexp(row, dim=-1) for row in logits])
        return sel - lse
    out = []
    for row_logits, row_labels in zip(logits, index):
        row_lp = F.log_softmax(row_logits, dim=-1)
        out.append(row_lp.gather(dim=-1, index=row_labels.unsqueeze(-1)).squeeze(-1))
    return torch.stack(out)


s32 = selective_log_softmax(logits[:, :-1].float(), labels)
s16 = selective_log_softmax(logits[:, :-1], labels)
print(
    "selective fp32 == gather:", torch.allclose(s32, lp_up, atol=1e-6), "bf16 path:", s16.dtype, torch.equal(s16, lp_bf)
)


def entropy_from_logits(logits, chunk_size=2):
    per = []
    for chunk in logits.reshape(-1, logits.shape[-1]).split(chunk_size, dim=0):
        logps = F.log_softmax(chunk, dim=-1)
        per.append(-(torch.exp(logps) * logps).sum(-1))
    return torch.cat(per).reshape(logits.shape[:-1])


ent = entropy_from_logits(logits.float())
print("entropy:", ent.round(decimals=2).tolist())
print(
    "vs Categorical:", torch.allclose(ent, torch.distributions.Categorical(logits=logits.float()).entropy(), atol=1e-5)
)

(-(lp_up.mean())).backward()
g = bf[1].weight.grad
print("grad dtype:", g.dtype, "finite:", bool(torch.isfinite(g).all()))

model32 = nn.Sequential(nn.Embedding(V, D), nn.Linear(D, V))
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model32(ids)
    lsm = out.log_softmax(-1)
    ce = F.cross_entropy(out.flatten(0, 1), ids.flatten())
    print(
        "autocast:", out.dtype, lsm.dtype, ce.dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")
    )
    with torch.autocast("cpu", enabled=False):
        print("nested disabled:", model32(ids).dtype)
ce.backward()
print("fp32 master grads:", model32[1].weight.grad.dtype, model32[0].weight.grad.dtype)
print(
    "bf16 eps/min/max:",
    torch.finfo(torch.bfloat16).eps,
    torch.finfo(torch.bfloat16).tiny,
    torch.finfo(torch.bfloat16).max,
)
print("bf16 rounding:", torch.tensor([1.0 + 2**-8, 1.0 + 2**-7, 257.0], dtype=torch.bfloat16).tolist())
print(
    "bf16 sum vs fp32:",
    torch.ones(1000, dtype=torch.bfloat16).cumsum(0)[-1].item(),
    torch.ones(1000, dtype=torch.bfloat16).sum().item(),
)

for bad in [
    lambda: nn.Linear(D, V)(torch.randn(2, D, dtype=torch.bfloat16)),
    lambda: torch.mm(torch.randn(2, 3), torch.randn(3, 2, dtype=torch.bfloat16)),
    lambda: torch.gather(logits, 2, labels[..., None].int()).dtype,
    lambda: F.log_softmax(logits, -1, dtype=torch.int64),
    lambda: type(torch.autocast("cpu", dtype=torch.float64).__enter__()).__name__,
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)

"""Dense-passage-retrieval bi-encoder training: in-batch negatives with InfoNCE, a learnable temperature clamped
as CLIP does, symmetric loss with label smoothing, duplicate-passage masking, and the mistakes of such loops."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Encoder(nn.Module):
    def __init__(self, vocab=50, dim=8):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean", padding_idx=0)
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), p=2, dim=-1, eps=1e-12)


q_enc, p_enc = Encoder(), Encoder()
logit_scale = nn.Parameter(torch.tensor(1 / 0.07).log())
opt = torch.optim.AdamW(list(q_enc.parameters()) + list(p_enc.parameters()) + [logit_scale], lr=1e-2)
queries = torch.randint(1, 50, (6, 5))
queries[:, -2:] = 0
passages = torch.randint(1, 50, (6, 7))
passages[3] = passages[1]  # a duplicate positive in the batch

for step in range(4):
    q, p = q_enc(queries), p_enc(passages)
    scale = logit_scale.exp().clamp(max=100)
    logits = scale * q @ p.T
    labels = torch.arange(q.shape[0])
    dup = (passages.unsqueeze(1) == passages.unsqueeze(0)).all(-1) & ~torch.eye(6, dtype=torch.bool)
    logits = logits.masked_fill(dup, float("-inf"))
    loss_q = F.cross_entropy(logits, labels, label_smoothing=0.1)
    loss_p = F.cross_entropy(logits.T, labels, label_smoothing=0.1)
    loss = (loss_q + loss_p) / 2
    opt.zero_grad(set_to_none=True)
    loss.backward()
    print(step, round(loss.item(), 4), round(logit_scale.grad.item(), 4), round(scale.item(), 4))
    opt.step()
    with torch.no_grad():
        logit_scale.clamp_(0, 4.6052)

print("dup mask", dup.nonzero().tolist(), dup.dtype)
print("logits row 1", logits[1])
print("norms", q.norm(dim=-1).round(decimals=4))
print("scale grad_fn", type(scale.grad_fn).__name__, scale.requires_grad)

# label smoothing with -inf logits: PyTorch's smoothing term sees -inf * eps
for ls in (0.0, 0.2):
    l = F.cross_entropy(logits, labels, label_smoothing=ls, reduction="none")
    print("ls", ls, l.detach())

# reduction variants and ignore_index on in-batch labels
lab2 = labels.clone()
lab2[0] = -100
print("ignore", round(F.cross_entropy(logits.detach().nan_to_num(neginf=-1e4), lab2).item(), 4))
print("sum", round(F.cross_entropy(logits.detach().clamp_min(-1e4), lab2, reduction="sum").item(), 4))
print(
    "soft targets",
    round(F.cross_entropy(logits.detach().clamp_min(-1e4), F.one_hot(labels, 6).float() * 0.9 + 0.1 / 6).item(), 4),
)

# low precision logits
for dt in (torch.float16, torch.bfloat16, torch.float64):
    lg = (q @ p.T).detach().to(dt) * 20
    out = F.cross_entropy(lg, labels, label_smoothing=0.1)
    print(dt, out.dtype, round(out.item(), 2))

# log_softmax over the passage axis and the KL distillation from a cross-encoder teacher
teacher = torch.randn(6, 6)
student = (q @ p.T).detach() / 0.05
kl = F.kl_div(F.log_softmax(student, -1), F.log_softmax(teacher, -1), reduction="batchmean", log_target=True)
print("kl", round(kl.item(), 4))
print("kl none", F.kl_div(F.log_softmax(student, -1), F.softmax(teacher, -1), reduction="none").shape)

# temperature as a buffer, not learnable
t = torch.tensor(0.05)
print("tau", (q @ p.T / t).requires_grad, (q.detach() @ p.detach().T / t).requires_grad)

# classic mistakes
for fn in (
    lambda: F.cross_entropy(logits, labels.float()),
    lambda: F.cross_entropy(logits, labels[:5]),
    lambda: F.cross_entropy(logits, labels, label_smoothing=1.5),
    lambda: F.cross_entropy(logits, labels + 6),
    lambda: F.normalize(q, p=2, dim=2),
    lambda: q @ p,
):
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

"""A DPO training step as a hand-rolled trainer writes it: a policy and a frozen reference copied with deepcopy
(eval, requires_grad_(False)), chosen and rejected responses concatenated into one batch, the sigmoid, IPO, hinge,
conservative-DPO, SimPO and ORPO losses with logsigmoid/log1p, reward margins and accuracies, AdamW with a
warmup LambdaLR and clip_grad_norm_, and the mistakes (a backward through the frozen reference, a step
on grads of None)."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D = 11, 12


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.rnn = nn.GRU(D, D, batch_first=True)
        self.head = nn.Linear(D, V)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.head(h)


def batch_logps(model, ids, loss_mask, average=False):
    logits = model(ids)[:, :-1]
    labels = ids[:, 1:].clone()
    mask = loss_mask[:, 1:]
    labels[~mask] = 0
    per_token = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
    s = (per_token * mask).sum(-1)
    return s / mask.sum(-1) if average else s


policy = TinyLM()
ref = copy.deepcopy(policy)
ref.eval()
ref.requires_grad_(False)
print(
    "ref trainable:",
    sum(p.requires_grad for p in ref.parameters()),
    "policy trainable:",
    sum(p.requires_grad for p in policy.parameters()),
)
print("same weights:", all(torch.equal(a, b) for a, b in zip(policy.parameters(), ref.parameters())))
print("shared storage:", policy.head.weight.data_ptr() == ref.head.weight.data_ptr())

N, T = 3, 7
prompt = torch.randint(1, V, (N, 3))
chosen = torch.randint(1, V, (N, 4))
rejected = torch.randint(1, V, (N, 4))
ids = torch.cat([torch.cat([prompt, chosen], 1), torch.cat([prompt, rejected], 1)], 0)
loss_mask = torch.zeros_like(ids, dtype=torch.bool)
loss_mask[:, 3:] = True
loss_mask[N - 1, -1] = False  # a shorter chosen response
print("batch:", tuple(ids.shape), loss_mask.sum(1).tolist())

opt = torch.optim.AdamW(policy.parameters(), lr=5e-2, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
beta = 0.1
for step in range(4):
    pol = batch_logps(policy, ids, loss_mask)
    with torch.no_grad():
        ref_lp = batch_logps(ref, ids, loss_mask)
    pc, pr = pol.split(N)
    rc, rr = ref_lp.chunk(2)
    logits = (pc - pr) - (rc - rr)
    loss = -F.logsigmoid(beta * logits).mean()
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(policy.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    cr, rjr = beta * (pc - rc).detach(), beta * (pr - rr).detach()
    print(
        f"step {step} loss {loss.item():.4f} gnorm {gn.item():.4f} lr {sched.get_last_lr()[0]:.4f}",
        "acc",
        (cr > rjr).float().mean().item(),
        "margin",
        round((cr - rjr).mean().item(), 4),
    )

z = logits.detach()
variants = {
    "ipo": (z - 1 / (2 * beta)) ** 2,
    "hinge": torch.relu(1 - beta * z),
    "cdpo": -F.logsigmoid(beta * z) * 0.8 - F.logsigmoid(-beta * z) * 0.2,
    "sigmoid_via_softplus": F.softplus(-beta * z),
}
for k, v in variants.items():
    print(k, v.round(decimals=4).tolist())

avg = batch_logps(policy, ids, loss_mask, average=True).detach()
ac, ar = avg.chunk(2)
simpo = -F.logsigmoid(2.0 * (ac - ar) - 0.5)
print("simpo:", simpo.round(decimals=4).tolist())
log_odds = (ac - ar) - (torch.log1p(-torch.exp(ac)) - torch.log1p(-torch.exp(ar)))
print("orpo log_odds:", log_odds.round(decimals=4).tolist(), "ratio:", round(-F.logsigmoid(log_odds).mean().item(), 4))
print("log1mexp via expm1:", torch.log(-torch.expm1(ac)).round(decimals=4).tolist())

try:
    batch_logps(ref, ids, loss_mask).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
opt.zero_grad()
print("grads after zero_grad:", [p.grad for p in policy.parameters()][:2])
opt.step()
print("step with None grads ok, lr:", opt.param_groups[0]["lr"])
print("sched state keys:", sorted(sched.state_dict()))
try:
    torch.nn.utils.clip_grad_norm_(policy.parameters(), max_norm=1.0, error_if_nonfinite=True)
    print("no grads -> norm", torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0))
except Exception as e:
    print(type(e).__name__, e)

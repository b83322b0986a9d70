"""A small MoE language model trained the way MoE papers configure it: expert parameters in their own AdamW group
(lower LR, no weight decay for router and norms), warmup-then-cosine LambdaLR, gradient accumulation with the aux
loss scaled per micro-batch, clip_grad_norm_ with foreach, and a bit-exact resume from a BytesIO checkpoint of
model, optimizer, scheduler and RNG state."""

import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MoEFFN(nn.Module):
    def __init__(self, d, h, n=4, k=2):
        super().__init__()
        self.k, self.n = k, n
        self.router = nn.Linear(d, n, bias=False)
        self.w_in = nn.Parameter(torch.randn(n, d, h) * d ** -0.5)
        self.w_out = nn.Parameter(torch.randn(n, h, d) * h ** -0.5)

    def forward(self, x):
        flat = x.reshape(-1, x.size(-1))
        probs = self.router(flat).softmax(-1)
        w, idx = probs.topk(self.k, dim=-1)
        w = w / w.sum(-1, keepdim=True)
        h = torch.einsum("td,tkdh->tkh", flat, self.w_in[idx]).relu()
        y = (torch.einsum("tkh,tkhd->tkd", h, self.w_out[idx]) * w[..., None]).sum(1)
        aux = self.n * (F.one_hot(idx[:, 0], self.n).float().mean(0) * probs.mean(0)).sum()
        return y.view_as(x), aux


class TinyMoELM(nn.Module):
    def __init__(self, vocab=13, d=8, h=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.norm1 = nn.LayerNorm(d)
        self.ffn = MoEFFN(d, h)
        self.norm2 = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.emb(idx)
        y, aux = self.ffn(self.norm1(x))
        return self.head(self.norm2(x + y)), aux


def make_optim(model):
    experts = [p for n, p in model.named_parameters() if n.startswith("ffn.w_")]
    no_decay = [p for n, p in model.named_parameters() if "router" in n or "norm" in n]
    rest = [p for n, p in model.named_parameters() if not (n.startswith("ffn.w_") or "router" in n or "norm" in n)]
    opt = torch.optim.AdamW([{"params": rest, "weight_decay": 0.1},
                             {"params": experts, "weight_decay": 0.1, "lr": 5e-3},
                             {"params": no_decay, "weight_decay": 0.0}], lr=1e-2, foreach=True)
    warmup, total = 3, 12

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))

    return opt, torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)


def train(model, opt, sched, steps, data, accum=2):
    log = []
    for _ in range(steps):
        opt.zero_grad()
        for micro in data.chunk(accum):
            logits, aux = model(micro[:, :-1])
            loss = F.cross_entropy(logits.flatten(0, 1), micro[:, 1:].flatten()) + 0.01 * aux
            (loss / accum).backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        sched.step()
        log.append((round(loss.item(), 4), round(norm.item(), 4), [round(lr, 6) for lr in sched.get_last_lr()]))
    return log


torch.manual_seed(0)
model = TinyMoELM()
opt, sched = make_optim(model)
print("groups:", [len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups])
data = (torch.arange(4 * 10).view(4, 10) * 5 + 1) % 13
for i, entry in enumerate(train(model, opt, sched, 5, data)):
    print("step", i, entry)

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
            "rng": torch.get_rng_state()}, buf)
reference = train(model, opt, sched, 3, data)
print("continued:", reference)

buf.seek(0)
ck = torch.load(buf, weights_only=True)
torch.manual_seed(123)
model2 = TinyMoELM()
opt2, sched2 = make_optim(model2)
model2.load_state_dict(ck["model"])
opt2.load_state_dict(ck["opt"])
sched2.load_state_dict(ck["sched"])
torch.set_rng_state(ck["rng"])
resumed = train(model2, opt2, sched2, 3, data)
print("resumed == continued:", resumed == reference)
print("same weights:", all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters())))
print("sched state:", {k: v for k, v in sched2.state_dict().items() if k in ("last_epoch", "_step_count")})
print("opt state step:", opt2.state_dict()["state"][0]["step"], sorted(opt2.state_dict()["param_groups"][1]))
try:
    opt2.load_state_dict({"state": {}, "param_groups": opt2.state_dict()["param_groups"][:2]})
except Exception as e:
    print(type(e).__name__, e)

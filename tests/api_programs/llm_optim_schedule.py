"""The optimizer side of an LLM training script: weight tying (and why named_parameters dedups it), nanoGPT's
configure_optimizers (decay only for >=2-D params), HF-style no-decay by name, AdamW with betas (0.9, 0.95),
a warmup+cosine LambdaLR and a hand-written get_lr, gradient accumulation, clip_grad_norm_ with its returned norm,
optimizer/scheduler state dicts for resume, and the fused/foreach flags checked through inspect."""

import inspect
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LambdaLR


class TinyGPT(nn.Module):
    def __init__(self, vocab=20, d=16, n_layer=2, block=8):
        super().__init__()
        self.n_layer = n_layer
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.h = nn.ModuleList(nn.ModuleDict(dict(
            ln_1=nn.LayerNorm(d), c_fc=nn.Linear(d, 4 * d), c_proj=nn.Linear(4 * d, d))) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                with torch.no_grad():
                    p.mul_(1 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        # deterministic stand-in for normal_(0, 0.02): values depend only on shape
        if isinstance(module, (nn.Linear, nn.Embedding)):
            w = module.weight
            with torch.no_grad():
                w.copy_(torch.sin(torch.arange(w.numel(), dtype=torch.float32) * 1.3).view_as(w) * 0.2)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, idx, targets=None):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
        for blk in self.h:
            x = x + blk.c_proj(F.gelu(blk.c_fc(blk.ln_1(x)), approximate="tanh"))
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                                            ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [{"params": decay_params, "weight_decay": weight_decay},
                        {"params": nodecay_params, "weight_decay": 0.0}]
        print(f"num decayed parameter tensors: {len(decay_params)}, with {sum(p.numel() for p in decay_params):,}"
              " parameters")
        print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with "
              f"{sum(p.numel() for p in nodecay_params):,} parameters")
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        print(f"fused available: {fused_available}")
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, fused=False)


model = TinyGPT()
print("tied:", model.lm_head.weight is model.wte.weight,
      model.lm_head.weight.data_ptr() == model.wte.weight.data_ptr())
print("named_parameters:", len(list(model.named_parameters())), "with duplicates:",
      len(list(model.named_parameters(remove_duplicate=False))))
sd = model.state_dict()
print("state_dict has both keys:", "lm_head.weight" in sd and "wte.weight" in sd, len(sd))
n_params = sum(p.numel() for p in model.parameters())
print("params:", n_params, "non-embedding:", n_params - model.wpe.weight.numel())
print("c_proj scaled:", round(model.h[0].c_proj.weight.abs().max().item(), 4),
      round(model.h[0].c_fc.weight.abs().max().item(), 4))

opt = model.configure_optimizers(weight_decay=0.1, learning_rate=6e-3, betas=(0.9, 0.95))
print("group wd:", [g["weight_decay"] for g in opt.param_groups], "betas:", opt.param_groups[0]["betas"],
      "fused:", opt.param_groups[0]["fused"], "foreach:", opt.defaults["foreach"])

# HF-style grouping by name
no_decay = ["bias", "LayerNorm.weight", "ln_"]
hf_groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
print("HF groups sizes:", [len(g["params"]) for g in hf_groups])
try:
    torch.optim.AdamW([{"params": [model.wte.weight]}, {"params": [model.lm_head.weight]}])
except ValueError as e:
    print("ValueError:", e)

warmup, max_steps, min_ratio = 3, 12, 0.1


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, max_steps - warmup)
    return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))


def get_lr(it, lr=6e-3):
    if it < warmup:
        return lr * (it + 1) / warmup
    if it > max_steps:
        return lr * min_ratio
    decay_ratio = (it - warmup) / (max_steps - warmup)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return lr * min_ratio + coeff * (lr - lr * min_ratio)


sched = LambdaLR(opt, lr_lambda)
print("initial lr:", [f"{g['lr']:.6f}" for g in opt.param_groups], "initial_lr key:",
      "initial_lr" in opt.param_groups[0])

data = (torch.arange(4 * 9) * 7 % 20).view(4, 9)
accum = 2
for step in range(6):
    opt.zero_grad(set_to_none=True)
    total = 0.0
    for micro in range(accum):
        batch = data[2 * micro:2 * micro + 2]
        _, loss = model(batch[:, :-1].contiguous(), batch[:, 1:].contiguous())
        (loss / accum).backward()
        total += loss.item() / accum
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    lr_now = sched.get_last_lr()[0]
    print(f"step {step} loss {total:.4f} grad_norm {norm.item():.4f} lr {lr_now:.6f} manual {get_lr(step + 1):.6f}")

print("tied grads shared:", model.lm_head.weight.grad is model.wte.weight.grad)
state = opt.state_dict()
print("opt state entries:", len(state["state"]), "group keys:", sorted(state["param_groups"][0].keys()))
print("param ids:", state["param_groups"][0]["params"][:4], state["param_groups"][1]["params"][:4])
print("step tensor:", state["state"][0]["step"], state["state"][0]["exp_avg"].shape)
ss = sched.state_dict()
print("sched state:", {k: v for k, v in ss.items() if k in ("last_epoch", "base_lrs", "_step_count")},
      "lr_lambdas:", ss["lr_lambdas"])

# resume into a fresh copy through a checkpoint file: the next step matches
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
            "iter_num": 6}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print("checkpoint keys:", list(ckpt), "iter_num:", ckpt["iter_num"])
model2 = TinyGPT()
model2.load_state_dict(ckpt["model"])
opt2 = torch.optim.AdamW([{"params": [p for p in model2.parameters() if p.dim() >= 2], "weight_decay": 0.1},
                          {"params": [p for p in model2.parameters() if p.dim() < 2], "weight_decay": 0.0}],
                         lr=6e-3, betas=(0.9, 0.95))
sched2 = LambdaLR(opt2, lr_lambda)
opt2.load_state_dict(ckpt["optimizer"])
sched2.load_state_dict(ckpt["scheduler"])
print("resumed lr:", f"{opt2.param_groups[0]['lr']:.6f}", "last_epoch:", sched2.last_epoch)
for m, o, s in ((model, opt, sched), (model2, opt2, sched2)):
    o.zero_grad()
    m(data[:2, :-1], data[:2, 1:].contiguous())[1].backward()
    o.step()
    s.step()
print("resumed step matches:", all(torch.allclose(a, b, atol=1e-6) for a, b in
                                   zip(model.parameters(), model2.parameters())))

# clip_grad_norm_ details
ps = [torch.ones(3, requires_grad=True), torch.ones(4, requires_grad=True)]
for p, g in zip(ps, (torch.tensor([3.0, 0.0, 4.0]), torch.full((4,), 6.0))):
    p.grad = g
n = torch.nn.utils.clip_grad_norm_(ps, max_norm=2.0)
print(f"total norm {n.item():.4f} clipped grads {[round(x, 4) for x in ps[0].grad.tolist()]}")
print("inf norm:", torch.nn.utils.clip_grad_norm_(ps, 1.0, norm_type="inf").item())
ps[0].grad[0] = float("nan")
try:
    torch.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:80])
print("clip_grad_value_:", end=" ")
torch.nn.utils.clip_grad_value_(ps, 0.5)
print(ps[1].grad.tolist())

"""A Trainer-style fine-tuning run of a small decoder for sequence classification: meta-device init with
to_empty and load_state_dict(assign=True), nn.Buffer, ALiBi slopes, grouped-query SDPA (enable_gqa), last
non-pad token pooling, Adafactor and AdamW with a cosine warmup LambdaLR, GradScaler, f-string logging of 0-dim
tensors, early stopping on an eval metric, and the log history a Trainer prints."""

# ruff: noqa
import functools
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def get_alibi_slopes(n_heads):
    closest = 2 ** math.floor(math.log2(n_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)
    powers = torch.arange(1, 1 + closest, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    if closest != n_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)
        num_rem = min(closest, n_heads - closest)
        extra_powers = torch.arange(1, 1 + 2 * num_rem, 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
    return slopes


print("slopes", r(get_alibi_slopes(6)), get_alibi_slopes(4).dtype)


class Attention(nn.Module):
    def __init__(self, d, n_heads, n_kv):
        super().__init__()
        self.n_heads, self.n_kv, self.hd = n_heads, n_kv, d // n_heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.kv_proj = nn.Linear(d, 2 * n_kv * self.hd, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.alibi = nn.Buffer(get_alibi_slopes(n_heads), persistent=False)

    def forward(self, x, mask):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.n_heads, self.hd).transpose(1, 2)
        k, v = self.kv_proj(x).view(b, n, 2, self.n_kv, self.hd).permute(2, 0, 3, 1, 4).unbind(0)
        pos = torch.arange(n)
        bias = self.alibi[:, None, None] * (pos[None, :] - pos[:, None]).float()
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        bias = bias.masked_fill(~causal, float("-inf")) + mask[:, None, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, n, -1))


class Block(nn.Module):
    def __init__(self, d, n_heads, n_kv):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(d, eps=1e-6), nn.RMSNorm(d, eps=1e-6)
        self.attn = Attention(d, n_heads, n_kv)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))

    def forward(self, x, mask):
        x = x + self.attn(self.norm1(x), mask)
        return x + self.mlp(self.norm2(x))


class ForSequenceClassification(nn.Module):
    def __init__(self, vocab=16, d=12, n_heads=6, n_kv=2, n_layers=2, num_labels=3, pad_token_id=0):
        super().__init__()
        self.pad_token_id = pad_token_id
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Block(d, n_heads, n_kv) for _ in range(n_layers))
        self.norm = nn.RMSNorm(d)
        self.score = nn.Linear(d, num_labels, bias=False)

    def forward(self, input_ids, labels=None):
        mask = torch.zeros(input_ids.shape, dtype=torch.float32).masked_fill(input_ids == self.pad_token_id,
                                                                             torch.finfo(torch.float32).min)
        h = self.embed(input_ids)
        for layer in self.layers:
            h = layer(h, mask)
        logits = self.score(self.norm(h))
        non_pad = (input_ids != self.pad_token_id).to(torch.int32)
        token_indices = torch.arange(input_ids.shape[-1], dtype=torch.int32)
        last = (token_indices * non_pad).argmax(-1)
        pooled = logits[torch.arange(input_ids.shape[0]), last]
        loss = F.cross_entropy(pooled, labels) if labels is not None else None
        return loss, pooled


with torch.device("meta"):
    model = ForSequenceClassification()
print("meta", model.score.weight.device, model.score.weight.is_meta, model.layers[0].attn.alibi.device)
model = model.to_empty(device="cpu")
state = {k: T(*v.shape) * 0.3 + (1.0 if "norm" in k else 0.0) for k, v in model.state_dict().items()}
res = model.load_state_dict(state, assign=True, strict=True)
print("assign", res, model.score.weight.device, model.score.weight.requires_grad, type(model.score.weight).__name__)
model.layers[0].attn.alibi = get_alibi_slopes(6)
model.layers[1].attn.alibi = get_alibi_slopes(6)
print("buffers", [n for n, _ in model.named_buffers()], "alibi" in "".join(model.state_dict()))
print("buffer type", isinstance(model.layers[0].attn.alibi, torch.Tensor), type(nn.Buffer(torch.ones(1))).__name__)

ids = torch.tensor([[3, 7, 2, 9, 0, 0], [5, 5, 1, 4, 8, 2], [6, 0, 0, 0, 0, 0], [2, 3, 4, 5, 6, 0]])
labels = torch.tensor([0, 2, 1, 2])
model.eval()
with torch.no_grad():
    loss, logits = model(ids, labels)
print(f"eval loss {loss} logits {logits.shape}")
print("logits", r(logits))

# grouped-query attention equals repeating the kv heads
q, k, v = T(2, 6, 4, 2), T(2, 2, 4, 2), T(2, 2, 4, 2)
a = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)
b = F.scaled_dot_product_attention(q, k.repeat_interleave(3, dim=1), v.repeat_interleave(3, dim=1), is_causal=True)
print("gqa", torch.allclose(a, b, atol=1e-6), r(a))


def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, num_cycles=0.5):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def train(opt_name, steps=6):
    torch.manual_seed(0)
    m = ForSequenceClassification()
    m.load_state_dict(state, strict=False)
    m.train()
    if opt_name == "adafactor":
        opt = torch.optim.Adafactor(m.parameters(), lr=1e-2, weight_decay=0.0)
    else:
        decay = [p for n, p in m.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in m.named_parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=1e-2, betas=(0.9, 0.95), eps=1e-8)
    sched = get_cosine_schedule_with_warmup(opt, 2, steps)
    scaler = torch.amp.GradScaler("cpu", enabled=True, init_scale=1024.0)
    log_history = []
    best, patience = float("inf"), 0
    for step in range(steps):
        loss, _ = m(ids, labels)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        grad_norm = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        sched.step()
        opt.zero_grad(set_to_none=True)
        log_history.append({"loss": round(loss.item(), 4), "grad_norm": round(grad_norm.item(), 4),
                            "learning_rate": round(sched.get_last_lr()[0], 6), "step": step + 1})
        with torch.no_grad():
            m.eval()
            eval_loss, eval_logits = m(ids, labels)
            m.train()
        acc = (eval_logits.argmax(-1) == labels).float().mean()
        print(f"{opt_name} step {step + 1}: loss={loss:.4f} eval_loss={eval_loss:.4f} acc={acc} lr={sched.get_last_lr()[0]:.6f}")
        if eval_loss < best - 1e-3:
            best, patience = eval_loss.item(), 0
        else:
            patience += 1
            if patience >= 2:
                print("early stopping at", step + 1)
                break
    return log_history, opt, scaler


hist, opt, scaler = train("adamw")
print(hist[-1])
print("scale", scaler.get_scale(), sorted(opt.state_dict()["state"][0].keys()))
hist, opt, _ = train("adafactor", steps=4)
print(hist[-1])
st = opt.state_dict()["state"]
print("adafactor state", sorted(st[0].keys()), [tuple(v.shape) for k, v in sorted(st[1].items()) if k != "step"])

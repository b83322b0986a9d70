"""nanoGPT as written: GPTConfig dataclass, CausalSelfAttention with one c_attn split three ways, the flash path
(F.scaled_dot_product_attention) checked against the masked-bias path, ModuleDict transformer, scaled c_proj init,
get_num_params, crop_block_size surgery, a few AdamW steps on a tiny corpus with get_batch, estimate_loss under
@torch.no_grad(), and generate() with cropping, temperature and top-k."""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.set_printoptions(precision=4, sci_mode=False)


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 27
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    dropout: float = 0.0
    bias: bool = True


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config, flash=True):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout
        self.flash = flash and hasattr(torch.nn.functional, "scaled_dot_product_attention")
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config, flash=True):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config, flash)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config, flash=True):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config, flash) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                with torch.no_grad():
                    p.mul_(0.02 / math.sqrt(2 * config.n_layer) / 0.02)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            w = module.weight
            with torch.no_grad():
                w.copy_(torch.sin(torch.arange(w.numel(), dtype=torch.float32) * 0.77 + w.shape[0]).view_as(w) * 0.1)
            if isinstance(module, nn.Linear) and module.bias is not None:
                torch.nn.init.zeros_(module.bias)

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only " \
                                            f"{self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    def crop_block_size(self, block_size):
        self.config.block_size = block_size
        self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
        for block in self.transformer.h:
            if hasattr(block.attn, "bias"):
                block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = probs.argmax(-1, keepdim=True)  # greedy stand-in for multinomial: seed-independent
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


config = GPTConfig()
print(config)
model = GPT(config)
print(f"number of parameters: {model.get_num_params() / 1e3:.4f}K")
print("tied:", model.transformer.wte.weight is model.lm_head.weight)
print("buffers:", [n for n, _ in model.named_buffers()])
print("c_proj std:", round(model.transformer.h[0].attn.c_proj.weight.std().item(), 4))

chars = sorted(set("hello world this is a tiny corpus for nanogpt"))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
text = "hello world this is a tiny corpus for nanogpt " * 6
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print("vocab:", len(chars), "data:", data.shape, data.dtype)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]


def get_batch(split, step):
    d = train_data if split == "train" else val_data
    ix = (torch.arange(4) * 37 + step * 11) % (len(d) - config.block_size)
    x = torch.stack([d[i:i + config.block_size] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + config.block_size] for i in ix])
    return x, y


xb, yb = get_batch("train", 0)
model_manual = GPT(config, flash=False)
model_manual.load_state_dict(model.state_dict())
l1 = model(xb, yb)[1]
l2 = model_manual(xb, yb)[1]
print(f"initial loss {l1.item():.4f} (ln V = {math.log(len(chars)):.4f}) manual path same:",
      torch.allclose(l1, l2, atol=1e-5))


@torch.no_grad()
def estimate_loss(eval_iters=3):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split, k)
            losses[k] = model(X, Y)[1].item()
        out[split] = losses.mean()
    model.train()
    return out


optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.99), weight_decay=0.1)
for it in range(12):
    if it % 4 == 0:
        losses = estimate_loss()
        print(f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    X, Y = get_batch("train", it)
    logits, loss = model(X, Y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
print(f"final loss {loss.item():.4f}", "logits:", tuple(logits.shape), "training:", model.training)

model.eval()
start = torch.tensor([[stoi["h"], stoi["e"]]])
out = model.generate(start, 10, temperature=0.8, top_k=5)
print("generated:", repr("".join(itos[i] for i in out[0].tolist())))
logits, _ = model(start)
print("inference logits shape:", tuple(logits.shape))
long_prompt = data[:20].unsqueeze(0)
print("generate crops context:", tuple(model.generate(long_prompt, 2).shape))
try:
    model(data[:20].unsqueeze(0))
except AssertionError as e:
    print("AssertionError:", e)
model.crop_block_size(8)
print("after crop:", tuple(model.transformer.wpe.weight.shape), tuple(model.transformer.h[0].attn.bias.shape),
      "block_size:", model.config.block_size)
print("cropped forward:", tuple(model(data[:8].unsqueeze(0))[0].shape))
N, cfg = model.get_num_params(), model.config
flops_per_token = 6 * N + 12 * cfg.n_layer * cfg.n_head * (cfg.n_embd // cfg.n_head) * cfg.block_size
print("flops per token:", flops_per_token)

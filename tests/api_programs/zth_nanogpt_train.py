"""nanoGPT's model.py/train.py idioms: ModuleDict transformer, weight tying, c_proj scaled init, SDPA flash path.

Also the uint16 memmap batches, configure_optimizers' decay groups, cosine lr, GradScaler off, checkpoint round trip.
"""

import inspect
import io
import math
import warnings
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 50
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
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")
        self.register_buffer(
            "bias",
            torch.tril(torch.ones(config.block_size, config.block_size)).view(
                1, 1, config.block_size, config.block_size
            ),
        )

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            y = self.attn_dropout(F.softmax(att, dim=-1)) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = nn.Sequential(
            nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias),
            nn.GELU(),
            nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias),
        )
        self.mlp[2].NANOGPT_SCALE_INIT = 1

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        return n_params - self.transformer.wpe.weight.numel() if non_embedding else n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return self.lm_head(x[:, [-1], :]), None

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {"params": decay_params, "weight_decay": weight_decay},
            {"params": nodecay_params, "weight_decay": 0.0},
        ]
        print(f"num decayed parameter tensors: {len(decay_params)}, with {sum(p.numel() for p in decay_params):,}")
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,}")
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == "cuda"
        print(f"fused available: {fused_available}, using fused AdamW: {use_fused}")
        extra_args = dict(fused=True) if use_fused else dict()
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)


torch.manual_seed(1337)
config = GPTConfig()
model = GPT(config)
print(f"number of parameters: {model.get_num_params() / 1e6:.4f}M", model.get_num_params(False))
print(model.lm_head.weight is model.transformer.wte.weight, len(list(model.parameters())), len(model.state_dict()))
print([k for k in model.state_dict() if k.endswith(".attn.bias")], model.transformer.h[0].attn.bias.shape)
print(round(model.transformer.h[1].attn.c_proj.weight.std().item(), 2), model.transformer.h[0].mlp)

data = np.arange(400, dtype=np.uint16) % config.vocab_size
ix = torch.randint(len(data) - config.block_size, (4,))
x = torch.stack([torch.from_numpy((data[i : i + config.block_size]).astype(np.int64)) for i in ix])
y = torch.stack([torch.from_numpy((data[i + 1 : i + 1 + config.block_size]).astype(np.int64)) for i in ix])
print(ix, x.dtype, x.shape, torch.equal(x[:, 1:], y[:, :-1]), torch.from_numpy(data[:3]).dtype)

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.set_float32_matmul_precision("low")
print(torch.get_float32_matmul_precision(), [str(m.message) for m in w], torch.cuda.is_available())
torch.set_float32_matmul_precision("highest")
print(torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
device_type = "cpu"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}["float32"]
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
scaler = torch.amp.GradScaler("cpu", enabled=(ptdtype == torch.float16))
print(scaler.is_enabled(), scaler.get_scale(), scaler.scale(torch.tensor(2.0)))
optimizer = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95), device_type)
print([g["weight_decay"] for g in optimizer.param_groups], optimizer.defaults["betas"], optimizer.defaults["fused"])


def get_lr(it, warmup_iters=2, lr_decay_iters=8, learning_rate=6e-4, min_lr=6e-5):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


for it in range(4):
    lr = get_lr(it)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    with ctx:
        logits, loss = model(x, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(it, f"{lr:.6f}", round(loss.item(), 4), round(norm.item(), 3), norm.dtype, logits.shape)
print(model.lm_head.weight.grad, len(optimizer.state), sorted(optimizer.state[model.lm_head.weight].keys()))

model.transformer.h[0].attn.flash = False
model.eval()
with torch.no_grad():
    a, _ = model(x[:1])
    model.transformer.h[0].attn.flash = True
    b, _ = model(x[:1])
print(a.shape, torch.allclose(a, b, atol=1e-6))

buf = io.BytesIO()
torch.save(
    {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "model_args": dict(n_layer=2),
        "iter_num": 4,
        "best_val_loss": torch.tensor(1.5),
        "config": {"lr": 6e-4},
    },
    buf,
)
buf.seek(0)
checkpoint = torch.load(buf, map_location="cpu")
state_dict = {"_orig_mod." + k: v for k, v in checkpoint["model"].items()}
unwanted_prefix = "_orig_mod."
for k, v in list(state_dict.items()):
    if k.startswith(unwanted_prefix):
        state_dict[k[len(unwanted_prefix) :]] = state_dict.pop(k)
model2 = GPT(config)
print(model2.load_state_dict(state_dict), checkpoint["iter_num"], checkpoint["best_val_loss"])
print(model2.lm_head.weight is model2.transformer.wte.weight, torch.equal(model2.lm_head.weight, model.lm_head.weight))
model2.transformer.wpe.weight = nn.Parameter(model2.transformer.wpe.weight[:8])
for block in model2.transformer.h:
    block.attn.bias = block.attn.bias[:, :, :8, :8]
print(model2.transformer.wpe.weight.shape, model2.transformer.h[0].attn.bias.shape)
print(sorted(k for k, _ in model2.named_buffers(prefix="x")), model2.transformer.h[0].attn.bias.is_contiguous())

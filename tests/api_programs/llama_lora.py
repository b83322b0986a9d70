"""A LLaMA-style decoder: RMSNorm, rotary embeddings through polar/view_as_complex, SwiGLU, grouped-query attention
with a KV cache, LoRA adapters (frozen base, merge), top-k/top-p filtering, greedy decoding, tied embeddings."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.float()).type_as(x) * self.weight


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim).reshape(bs, slen,
                                                                                     n_kv_heads * n_rep, head_dim)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=2, alpha=4):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.zeros(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if self.merged:
            return out
        return out + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling

    def merge(self):
        with torch.no_grad():
            self.base.weight += (self.lora_B @ self.lora_A) * self.scaling
        self.merged = True


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, max_seq=16):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        self.register_buffer("cache_k", torch.zeros(1, max_seq, n_kv_heads, self.head_dim), persistent=False)
        self.register_buffer("cache_v", torch.zeros(1, max_seq, n_kv_heads, self.head_dim), persistent=False)

    def forward(self, x, start_pos, freqs_cis, mask, use_cache=False):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        if use_cache:
            self.cache_k[:bsz, start_pos: start_pos + seqlen] = xk.detach()
            self.cache_v[:bsz, start_pos: start_pos + seqlen] = xv.detach()
            keys = self.cache_k[:bsz, : start_pos + seqlen]
            values = self.cache_v[:bsz, : start_pos + seqlen]
        else:
            keys, values = xk, xv
        keys = repeat_kv(keys, self.n_heads // self.n_kv_heads)
        values = repeat_kv(values, self.n_heads // self.n_kv_heads)
        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of=8):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim=16, n_heads=4, n_kv_heads=2):
        super().__init__()
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.feed_forward = FeedForward(dim, 4 * dim)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)

    def forward(self, x, start_pos, freqs_cis, mask, use_cache=False):
        h = x + self.attention(self.attention_norm(x), start_pos, freqs_cis, mask, use_cache)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab=11, dim=16, n_layers=2, max_seq=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([Block(dim) for _ in range(n_layers)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.output.weight = self.tok_embeddings.weight
        self.register_buffer("freqs_cis", precompute_freqs_cis(dim // 4, max_seq * 2), persistent=False)

    def forward(self, tokens, start_pos=0, use_cache=False):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[start_pos: start_pos + seqlen]
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"))
            mask = torch.triu(mask, diagonal=1)
            mask = torch.hstack([torch.zeros((seqlen, start_pos)), mask]).type_as(h)
        for layer in self.layers:
            h = layer(h, start_pos, freqs_cis, mask, use_cache)
        return self.output(self.norm(h)).float()


model = Transformer()
with torch.no_grad():
    for n, p in model.named_parameters():
        if not n.endswith("norm.weight"):
            p.copy_(T(*p.shape) * 0.3)
fc = model.freqs_cis
print("freqs_cis", fc.dtype, tuple(fc.shape), r(torch.view_as_real(fc[3])), r(fc.angle()[2]), r(fc.abs()[1]))
print("tied", model.output.weight is model.tok_embeddings.weight, len(list(model.parameters())),
      len(model.state_dict()), "freqs_cis" in model.state_dict())
tokens = torch.from_numpy(rng.integers(0, 11, (2, 6)))
logits = model(tokens)
print("logits", tuple(logits.shape), r(logits[0, -1]))
loss = F.cross_entropy(logits[:, :-1].reshape(-1, 11), tokens[:, 1:].reshape(-1))
print("lm_loss", round(loss.item(), 4), round(math.exp(loss.item()), 3) > 1)

# LoRA: wrap q/v projections, freeze everything else
for p in model.parameters():
    p.requires_grad_(False)
for layer in model.layers:
    layer.attention.wq = LoRALinear(layer.attention.wq)
    layer.attention.wv = LoRALinear(layer.attention.wv)
with torch.no_grad():
    for n, p in model.named_parameters():
        if "lora_" in n:
            p.copy_(T(*p.shape) * 0.1)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
n_total = sum(p.numel() for p in model.parameters())
print("lora", len(trainable), trainable[:2], n_train, n_total)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2, weight_decay=0.0)
for step in range(3):
    logits = model(tokens)
    loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("lora_step", step, round(loss.item(), 4), model.tok_embeddings.weight.grad is None)
lora_sd = {k: v for k, v in model.state_dict().items() if "lora_" in k}
print("lora_sd", len(lora_sd), sorted(lora_sd)[0])
with torch.no_grad():
    before = model(tokens)
    for layer in model.layers:
        layer.attention.wq.merge()
        layer.attention.wv.merge()
    after = model(tokens)
print("merged", round((before - after).abs().max().item(), 4))

# generation: prefill then one token at a time through the KV cache
model.eval()
with torch.inference_mode():
    prompt = tokens[:1, :3]
    full = model(prompt, 0, use_cache=True)
    out = prompt.clone()
    nxt = full[:, -1].argmax(-1, keepdim=True)
    for pos in range(3, 7):
        out = torch.cat([out, nxt], dim=1)
        step_logits = model(nxt, pos, use_cache=True)
        nxt = torch.argmax(step_logits[:, -1], dim=-1, keepdim=True)
    no_cache = model(out)
print("generate", out.tolist(), round((no_cache[:, -1] - step_logits[:, -1]).abs().max().item(), 4))


def top_k_top_p_filter(logits, top_k=0, top_p=1.0, filter_value=-float("inf")):
    if top_k > 0:
        kth = torch.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(logits < kth, filter_value)
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        logits = logits.masked_fill(indices_to_remove, filter_value)
    return logits


lg = T(2, 11) * 2
f = top_k_top_p_filter(lg, top_k=5, top_p=0.8)
probs = F.softmax(f / 0.7, dim=-1)
print("filter", torch.isinf(f).sum(-1).tolist(), r(probs[0]), probs.sum(-1).tolist())
sample = torch.multinomial(probs, num_samples=1)
print("multinomial", tuple(sample.shape), bool(torch.isfinite(f.gather(1, sample)).all()))

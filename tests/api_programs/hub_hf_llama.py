"""HuggingFace-style Llama written inline: LlamaRMSNorm computing in float32, rotary embeddings from an inv_freq buffer
(persistent=False) with linear rope scaling, rotate_half/apply_rotary_pos_emb, repeat_kv for grouped-query attention,
a DynamicCache with update/get_seq_length, a 4-D causal mask with a sliding window filled with finfo.min, meta-device
construction with to_empty and load_state_dict(assign=True), bfloat16 inference, gradient checkpointing with
use_reentrant=False, and cached greedy decoding checked against the uncached forward."""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
torch.set_printoptions(precision=4)


@dataclass
class LlamaConfig:
    vocab_size: int = 48
    hidden_size: int = 32
    intermediate_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling_factor: float = 1.0
    sliding_window: int = None


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        dim = config.hidden_size // config.num_attention_heads
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.scaling_factor = config.rope_scaling_factor

    @torch.no_grad()
    def forward(self, x, position_ids):
        position_ids = position_ids.float() / self.scaling_factor
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv_freq_expanded.float() @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class DynamicCache:
    def __init__(self):
        self.key_cache, self.value_cache = [], []

    def update(self, key_states, value_states, layer_idx):
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx=0):
        return 0 if len(self.key_cache) <= layer_idx else self.key_cache[layer_idx].shape[-2]

    def __len__(self):
        return len(self.key_cache)


def causal_mask_4d(q_len, kv_len, dtype, past, sliding_window=None):
    min_dtype = torch.finfo(dtype).min
    mask = torch.full((q_len, kv_len), fill_value=min_dtype, dtype=dtype)
    cache_position = torch.arange(past, past + q_len)
    allowed = torch.arange(kv_len) <= cache_position.reshape(-1, 1)
    if sliding_window is not None:
        allowed &= torch.arange(kv_len) > cache_position.reshape(-1, 1) - sliding_window
    mask = mask.masked_fill(allowed, 0.0)
    return mask[None, None, :, :]


class LlamaAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.num_heads, self.num_kv = config.num_attention_heads, config.num_key_value_heads
        self.q_proj = nn.Linear(config.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, self.num_kv * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, self.num_kv * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, config.hidden_size, bias=False)

    def forward(self, h, position_embeddings, attention_mask, past_key_value=None):
        bsz, q_len, _ = h.size()
        q = self.q_proj(h).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        if past_key_value is not None:
            k, v = past_key_value.update(k, v, self.layer_idx)
        k, v = repeat_kv(k, self.num_heads // self.num_kv), repeat_kv(v, self.num_heads // self.num_kv)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, dropout_p=0.0)
        return self.o_proj(out.transpose(1, 2).contiguous().reshape(bsz, q_len, -1))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.self_attn = LlamaAttention(config, layer_idx)
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, h, position_embeddings, attention_mask, past_key_value=None):
        h = h + self.self_attn(self.input_layernorm(h), position_embeddings, attention_mask, past_key_value)
        x = self.post_attention_layernorm(h)
        return h + self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers)])
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.gradient_checkpointing = False

    def forward(self, input_ids, past_key_values=None, labels=None):
        past = past_key_values.get_seq_length() if past_key_values is not None else 0
        h = self.embed_tokens(input_ids)
        position_ids = torch.arange(past, past + input_ids.shape[1]).unsqueeze(0)
        pe = self.rotary_emb(h, position_ids)
        mask = causal_mask_4d(input_ids.shape[1], past + input_ids.shape[1], h.dtype, past,
                              self.config.sliding_window)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                h = checkpoint(layer, h, pe, mask, None, use_reentrant=False)
            else:
                h = layer(h, pe, mask, past_key_values)
        logits = self.lm_head(self.norm(h)).float()
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1),
                                   ignore_index=-100)
        return loss, logits


config = LlamaConfig()
with torch.device("meta"):
    meta_model = LlamaForCausalLM(config)
print("meta", meta_model.lm_head.weight.device, meta_model.layers[0].self_attn.k_proj)
print(meta_model.layers[0])
model = LlamaForCausalLM(config)
for p in model.parameters():
    if p.ndim == 2:
        nn.init.normal_(p, std=0.1)
print("params", sum(p.numel() for p in model.parameters()), "buffers", [n for n, _ in model.named_buffers()])
print("state_dict has inv_freq", any("inv_freq" in k for k in model.state_dict()), len(model.state_dict()))
with torch.device("meta"):
    empty = LlamaForCausalLM(config)
empty = empty.to_empty(device="cpu")
print("to_empty", empty.lm_head.weight.device, empty.lm_head.weight.shape, empty.rotary_emb.inv_freq.device)
print("load into empty", empty.load_state_dict(model.state_dict()))
loaded = meta_model
loaded.load_state_dict(model.state_dict(), assign=True)
print("assigned", loaded.lm_head.weight.device, loaded.rotary_emb.inv_freq.device)
loaded.rotary_emb.inv_freq = model.rotary_emb.inv_freq.clone()

print("inv_freq", model.rotary_emb.inv_freq)
cos, sin = model.rotary_emb(torch.zeros(1, dtype=torch.float32), torch.arange(4)[None])
print("cos", cos.shape, cos[0, 1], "sin[3]", sin[0, 3])
q = torch.randn(1, 4, 4, 8)
qr, _ = apply_rotary_pos_emb(q, q, cos, sin)
print("rope keeps norm", torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-5), "pos0 unchanged",
      torch.allclose(qr[:, :, 0], q[:, :, 0]))
kv = torch.randn(1, 2, 3, 8)
rep = repeat_kv(kv, 2)
print("repeat_kv", tuple(rep.shape), torch.equal(rep[:, 1], kv[:, 0]), torch.equal(rep[:, 2], kv[:, 1]))
m = causal_mask_4d(3, 5, torch.float32, past=2, sliding_window=3)
print("mask", (m[0, 0] == 0).int().tolist(), m.dtype, m.min().item() == torch.finfo(torch.float32).min)
print("bf16 mask min", causal_mask_4d(2, 2, torch.bfloat16, 0)[0, 0, 0, 1].item())

ids = torch.randint(0, config.vocab_size, (2, 6))
model.eval()
with torch.no_grad():
    _, logits = model(ids)
    _, logits_loaded = loaded(ids)
print("logits", logits.shape, logits[0, -1, :5], "loaded same", torch.allclose(logits, logits_loaded))

with torch.no_grad():
    cache = DynamicCache()
    seq = ids[:1, :3]
    _, lg = model(seq, past_key_values=cache)
    for _ in range(5):
        nxt = lg[:, -1].argmax(-1, keepdim=True)
        seq = torch.cat([seq, nxt], dim=1)
        _, lg = model(nxt, past_key_values=cache)
    _, full = model(seq)
print("greedy", seq.tolist(), "cache", len(cache), cache.get_seq_length(), tuple(cache.key_cache[0].shape))
print("cached last == full", torch.allclose(lg[:, -1], full[:, -1], atol=1e-4))

model_bf16 = LlamaForCausalLM(config)
model_bf16.load_state_dict(model.state_dict())
model_bf16.to(torch.bfloat16).eval()
with torch.no_grad():
    _, lb = model_bf16(ids)
print("bf16", model_bf16.embed_tokens.weight.dtype, lb.dtype, "max diff < 0.1",
      (lb - logits).abs().max().item() < 0.1, model_bf16.rotary_emb.inv_freq.dtype)
print("rmsnorm bf16 out", model_bf16.norm(torch.randn(2, 32).to(torch.bfloat16)).dtype)

sw_model = LlamaForCausalLM(LlamaConfig(sliding_window=2))
sw_model.load_state_dict(model.state_dict())
sw_model.eval()
with torch.no_grad():
    _, sw = sw_model(ids)
print("sliding window: first 2 positions equal", torch.allclose(sw[:, :2], logits[:, :2], atol=1e-5),
      "later differ", not torch.allclose(sw[:, 4:], logits[:, 4:]))

model.train()
model.gradient_checkpointing = True
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)
labels = ids.clone()
labels[:, :2] = -100
for step in range(3):
    loss, _ = model(ids, labels=labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} gate grad {model.layers[0].gate_proj.weight.grad.norm().item():.4f}")
model.gradient_checkpointing = False
model.zero_grad()
loss_plain, _ = model(ids, labels=labels)
loss_plain.backward()
g_plain = model.layers[1].self_attn.q_proj.weight.grad.clone()
model.zero_grad()
model.gradient_checkpointing = True
loss_ckpt, _ = model(ids, labels=labels)
loss_ckpt.backward()
print("checkpoint grads equal", torch.allclose(g_plain, model.layers[1].self_attn.q_proj.weight.grad, atol=1e-6),
      round(loss_plain.item(), 4) == round(loss_ckpt.item(), 4))

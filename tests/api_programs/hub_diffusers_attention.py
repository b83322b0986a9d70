"""diffusers-style attention written inline: an Attention module with swappable processors (set_attn_processor,
attn_processors by name), get_attention_scores through torch.baddbmm on an uninitialised tensor with beta=0,
head_to_batch_dim/batch_to_head_dim, an SDPA processor and a LoRA processor, GEGLU feed-forward, BasicTransformerBlock
with cross-attention to encoder_hidden_states, Transformer2DModel over GroupNorm'ed pixels, AdaGroupNorm, and
classifier-free guidance with chunk(2) plus guidance rescale."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class AttnProcessor:
    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        ctx = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        query = attn.head_to_batch_dim(attn.to_q(hidden_states))
        key = attn.head_to_batch_dim(attn.to_k(ctx))
        value = attn.head_to_batch_dim(attn.to_v(ctx))
        probs = attn.get_attention_scores(query, key, attention_mask)
        hidden_states = attn.batch_to_head_dim(torch.bmm(probs, value))
        return attn.to_out[1](attn.to_out[0](hidden_states))


class AttnProcessor2_0:
    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        ctx = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        b = hidden_states.shape[0]
        q = attn.to_q(hidden_states).view(b, -1, attn.heads, attn.dim_head).transpose(1, 2)
        k = attn.to_k(ctx).view(b, -1, attn.heads, attn.dim_head).transpose(1, 2)
        v = attn.to_v(ctx).view(b, -1, attn.heads, attn.dim_head).transpose(1, 2)
        if attention_mask is not None:
            attention_mask = attention_mask.view(b, attn.heads, -1, attention_mask.shape[-1])
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, dropout_p=0.0, is_causal=False)
        out = out.transpose(1, 2).reshape(b, -1, attn.heads * attn.dim_head).to(q.dtype)
        return attn.to_out[1](attn.to_out[0](out))


class LoRALinearLayer(nn.Module):
    def __init__(self, in_features, out_features, rank=4, network_alpha=None):
        super().__init__()
        self.down = nn.Linear(in_features, rank, bias=False)
        self.up = nn.Linear(rank, out_features, bias=False)
        self.network_alpha, self.rank = network_alpha, rank
        nn.init.normal_(self.down.weight, std=1 / rank)
        nn.init.zeros_(self.up.weight)

    def forward(self, hidden_states):
        orig_dtype = hidden_states.dtype
        up = self.up(self.down(hidden_states.to(self.down.weight.dtype)))
        if self.network_alpha is not None:
            up *= self.network_alpha / self.rank
        return up.to(orig_dtype)


class LoRAAttnProcessor(nn.Module):
    def __init__(self, hidden_size, cross_attention_dim=None, rank=4, network_alpha=None):
        super().__init__()
        self.to_q_lora = LoRALinearLayer(hidden_size, hidden_size, rank, network_alpha)
        self.to_k_lora = LoRALinearLayer(cross_attention_dim or hidden_size, hidden_size, rank, network_alpha)
        self.to_v_lora = LoRALinearLayer(cross_attention_dim or hidden_size, hidden_size, rank, network_alpha)
        self.to_out_lora = LoRALinearLayer(hidden_size, hidden_size, rank, network_alpha)

    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None, scale=1.0):
        ctx = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        query = attn.head_to_batch_dim(attn.to_q(hidden_states) + scale * self.to_q_lora(hidden_states))
        key = attn.head_to_batch_dim(attn.to_k(ctx) + scale * self.to_k_lora(ctx))
        value = attn.head_to_batch_dim(attn.to_v(ctx) + scale * self.to_v_lora(ctx))
        probs = attn.get_attention_scores(query, key, attention_mask)
        h = attn.batch_to_head_dim(torch.bmm(probs, value))
        return attn.to_out[1](attn.to_out[0](h) + scale * self.to_out_lora(h))


class Attention(nn.Module):
    def __init__(self, query_dim, cross_attention_dim=None, heads=2, dim_head=8, upcast_softmax=True):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads, self.dim_head, self.scale = heads, dim_head, dim_head ** -0.5
        self.upcast_softmax = upcast_softmax
        cross_attention_dim = cross_attention_dim or query_dim
        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_k = nn.Linear(cross_attention_dim, inner_dim, bias=False)
        self.to_v = nn.Linear(cross_attention_dim, inner_dim, bias=False)
        self.to_out = nn.ModuleList([nn.Linear(inner_dim, query_dim), nn.Dropout(0.0)])
        self.set_processor(AttnProcessor())

    def set_processor(self, processor):
        if isinstance(processor, nn.Module):
            self._modules["processor"] = processor
        else:
            self._modules.pop("processor", None)
        self.processor = processor

    def head_to_batch_dim(self, tensor):
        batch_size, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch_size, seq_len, self.heads, dim // self.heads).permute(0, 2, 1, 3)
        return tensor.reshape(batch_size * self.heads, seq_len, dim // self.heads)

    def batch_to_head_dim(self, tensor):
        batch_size, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch_size // self.heads, self.heads, seq_len, dim).permute(0, 2, 1, 3)
        return tensor.reshape(batch_size // self.heads, seq_len, dim * self.heads)

    def get_attention_scores(self, query, key, attention_mask=None):
        dtype = query.dtype
        if attention_mask is None:
            baddbmm_input = torch.empty(query.shape[0], query.shape[1], key.shape[1], dtype=query.dtype)
            beta = 0
        else:
            baddbmm_input = attention_mask
            beta = 1
        scores = torch.baddbmm(baddbmm_input, query, key.transpose(-1, -2), beta=beta, alpha=self.scale)
        if self.upcast_softmax:
            scores = scores.float()
        return scores.softmax(dim=-1).to(dtype)

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None, **kwargs):
        return self.processor(self, hidden_states, encoder_hidden_states, attention_mask, **kwargs)


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, hidden_states):
        hidden_states, gate = self.proj(hidden_states).chunk(2, dim=-1)
        return hidden_states * F.gelu(gate)


class BasicTransformerBlock(nn.Module):
    def __init__(self, dim, heads, dim_head, cross_attention_dim):
        super().__init__()
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn1 = Attention(dim, heads=heads, dim_head=dim_head)
        self.attn2 = Attention(dim, cross_attention_dim, heads=heads, dim_head=dim_head)
        self.ff = nn.Sequential(GEGLU(dim, dim * 4), nn.Dropout(0.0), nn.Linear(dim * 4, dim))

    def forward(self, h, encoder_hidden_states=None):
        h = self.attn1(self.norm1(h)) + h
        h = self.attn2(self.norm2(h), encoder_hidden_states=encoder_hidden_states) + h
        return self.ff(self.norm3(h)) + h


class Transformer2DModel(nn.Module):
    def __init__(self, in_channels=8, heads=2, dim_head=8, cross_attention_dim=12, norm_num_groups=4):
        super().__init__()
        inner = heads * dim_head
        self.norm = nn.GroupNorm(norm_num_groups, in_channels, eps=1e-6, affine=True)
        self.proj_in = nn.Conv2d(in_channels, inner, kernel_size=1)
        self.transformer_blocks = nn.ModuleList([BasicTransformerBlock(inner, heads, dim_head, cross_attention_dim)])
        self.proj_out = nn.Conv2d(inner, in_channels, kernel_size=1)

    @property
    def attn_processors(self):
        return {f"{name}.processor": m.processor for name, m in self.named_modules() if isinstance(m, Attention)}

    def set_attn_processor(self, processor):
        for name, m in self.named_modules():
            if isinstance(m, Attention):
                m.set_processor(processor[f"{name}.processor"] if isinstance(processor, dict) else processor)

    def forward(self, hidden_states, encoder_hidden_states=None):
        batch, _, height, width = hidden_states.shape
        residual = hidden_states
        h = self.proj_in(self.norm(hidden_states))
        inner_dim = h.shape[1]
        h = h.permute(0, 2, 3, 1).reshape(batch, height * width, inner_dim)
        for block in self.transformer_blocks:
            h = block(h, encoder_hidden_states=encoder_hidden_states)
        h = h.reshape(batch, height, width, inner_dim).permute(0, 3, 1, 2).contiguous()
        return self.proj_out(h) + residual


class AdaGroupNorm(nn.Module):
    def __init__(self, embedding_dim, out_dim, num_groups, eps=1e-5):
        super().__init__()
        self.num_groups, self.eps = num_groups, eps
        self.act = nn.SiLU()
        self.linear = nn.Linear(embedding_dim, out_dim * 2)

    def forward(self, x, emb):
        emb = self.linear(self.act(emb))[:, :, None, None]
        scale, shift = emb.chunk(2, dim=1)
        x = F.group_norm(x, self.num_groups, eps=self.eps)
        return x * (1 + scale) + shift


def rescale_noise_cfg(noise_cfg, noise_pred_text, guidance_rescale=0.0):
    std_text = noise_pred_text.std(dim=list(range(1, noise_pred_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    noise_pred_rescaled = noise_cfg * (std_text / std_cfg)
    return guidance_rescale * noise_pred_rescaled + (1 - guidance_rescale) * noise_cfg


q = torch.randn(4, 5, 8)
k = torch.randn(4, 7, 8)
garbage = torch.full((4, 5, 7), float("nan"))
print("baddbmm beta=0 ignores nan", torch.allclose(torch.baddbmm(garbage, q, k.transpose(-1, -2), beta=0, alpha=0.5),
                                                   0.5 * q @ k.transpose(-1, -2)))
bias = torch.randn(4, 5, 7)
print("baddbmm beta=1", torch.allclose(torch.baddbmm(bias, q, k.transpose(-1, -2), beta=1, alpha=0.5),
                                       bias + 0.5 * q @ k.transpose(-1, -2), atol=1e-6))

attn = Attention(16, cross_attention_dim=12, heads=2, dim_head=8)
x = torch.randn(2, 6, 16)
t = attn.head_to_batch_dim(x)
print("head_to_batch", tuple(t.shape), torch.equal(attn.batch_to_head_dim(t), x))
ctx = torch.randn(2, 3, 12)
out_classic = attn(x, ctx)
attn.set_processor(AttnProcessor2_0())
out_sdpa = attn(x, ctx)
print("classic == sdpa", torch.allclose(out_classic, out_sdpa, atol=1e-5), out_sdpa[0, 0, :4])
mask = torch.zeros(4, 6, 3)
mask[:, :, -1] = torch.finfo(torch.float32).min
attn.set_processor(AttnProcessor())
m_classic = attn(x, ctx, attention_mask=mask)
attn.set_processor(AttnProcessor2_0())
print("masked classic == sdpa", torch.allclose(m_classic, attn(x, ctx, attention_mask=mask), atol=1e-5),
      "mask changes output", not torch.allclose(m_classic, out_classic))

model = Transformer2DModel()
print(model.transformer_blocks[0].ff)
print("processors", {k: type(v).__name__ for k, v in model.attn_processors.items()})
print("params", sum(p.numel() for p in model.parameters()))
img = torch.randn(2, 8, 4, 4)
text = torch.randn(2, 5, 12)
base = model(img, text)
print("out", base.shape, base[0, 0, 0])

lora = {name: LoRAAttnProcessor(16, 12 if "attn2" in name else None, rank=2, network_alpha=1)
        for name in model.attn_processors}
model.set_attn_processor(lora)
print("lora processors", sorted(type(v).__name__ for v in model.attn_processors.values()),
      "lora params", sum(p.numel() for n, p in model.named_parameters() if "lora" in n))
print("lora keys", [k for k in model.state_dict() if "attn2.processor" in k][:3])
print("lora zero-init same", torch.allclose(model(img, text), base, atol=1e-6))
model.requires_grad_(False)
lora_params = [p for n, p in model.named_parameters() if "lora" in n]
for p in lora_params:
    p.requires_grad_(True)
opt = torch.optim.AdamW(lora_params, lr=1e-2)
target = torch.randn_like(img)
for step in range(3):
    loss = F.mse_loss(model(img, text), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"lora step {step} loss {loss.item():.4f}")
print("base frozen", model.proj_in.weight.grad is None, "up grad", lora_params[1].grad.abs().sum().item() > 0)

ada = AdaGroupNorm(6, 8, num_groups=4)
print("adagroupnorm", ada(img, torch.randn(2, 6))[0, :2, 0, 0])

latents = torch.cat([img] * 2)
emb = torch.cat([torch.zeros_like(text), text])
model.set_attn_processor(AttnProcessor2_0())
with torch.no_grad():
    noise_pred = model(latents, emb)
noise_uncond, noise_text = noise_pred.chunk(2)
guided = noise_uncond + 7.5 * (noise_text - noise_uncond)
rescaled = rescale_noise_cfg(guided, noise_text, guidance_rescale=0.7)
print("cfg", guided.shape, round(guided.std().item(), 4), "rescaled std", round(rescaled.std().item(), 4),
      "text std", round(noise_text.std().item(), 4))

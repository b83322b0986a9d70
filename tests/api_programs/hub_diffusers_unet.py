"""A diffusers-style tiny UNet2DModel written inline: get_timestep_embedding (flip_sin_to_cos, downscale_freq_shift),
Timesteps and TimestepEmbedding modules, ResnetBlock2D (GroupNorm + SiLU, time-embedding projection, a 1x1
conv_shortcut, output_scale_factor), Downsample2D/Upsample2D (F.interpolate nearest, conv or avg-pool), a mid-block
self-attention over GroupNorm'ed tokens, skip connections, a config dict, EMA weights and training steps."""

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1.0, scale=1.0,
                           max_period=10000):
    assert len(timesteps.shape) == 1, "Timesteps should be a 1d-array"
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


class Timesteps(nn.Module):
    def __init__(self, num_channels, flip_sin_to_cos, downscale_freq_shift):
        super().__init__()
        self.num_channels, self.flip_sin_to_cos, self.downscale_freq_shift = num_channels, flip_sin_to_cos, \
            downscale_freq_shift

    def forward(self, timesteps):
        return get_timestep_embedding(timesteps, self.num_channels, self.flip_sin_to_cos, self.downscale_freq_shift)


class TimestepEmbedding(nn.Module):
    def __init__(self, in_channels, time_embed_dim):
        super().__init__()
        self.linear_1 = nn.Linear(in_channels, time_embed_dim)
        self.act = nn.SiLU()
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim)

    def forward(self, sample):
        return self.linear_2(self.act(self.linear_1(sample)))


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels=None, temb_channels=32, groups=4, eps=1e-6, dropout=0.0,
                 output_scale_factor=1.0):
        super().__init__()
        out_channels = in_channels if out_channels is None else out_channels
        self.output_scale_factor = output_scale_factor
        self.norm1 = nn.GroupNorm(num_groups=groups, num_channels=in_channels, eps=eps, affine=True)
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(num_groups=groups, num_channels=out_channels, eps=eps, affine=True)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.nonlinearity = nn.SiLU()
        self.use_in_shortcut = in_channels != out_channels
        self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1) if self.use_in_shortcut else None

    def forward(self, input_tensor, temb):
        h = self.conv1(self.nonlinearity(self.norm1(input_tensor)))
        temb = self.time_emb_proj(self.nonlinearity(temb))[:, :, None, None]
        h = self.nonlinearity(self.norm2(h + temb))
        h = self.conv2(self.dropout(h))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return (input_tensor + h) / self.output_scale_factor


class Downsample2D(nn.Module):
    def __init__(self, channels, use_conv=True, padding=1):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, stride=2, padding=padding) if use_conv \
            else nn.AvgPool2d(kernel_size=2, stride=2)

    def forward(self, hidden_states):
        return self.conv(hidden_states)


class Upsample2D(nn.Module):
    def __init__(self, channels, use_conv=True):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1) if use_conv else None

    def forward(self, hidden_states, output_size=None):
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return self.conv(hidden_states) if self.conv is not None else hidden_states


class Attention(nn.Module):
    def __init__(self, channels, heads=1, groups=4):
        super().__init__()
        self.heads = heads
        self.group_norm = nn.GroupNorm(groups, channels, eps=1e-6)
        self.to_q, self.to_k, self.to_v = (nn.Linear(channels, channels) for _ in range(3))
        self.to_out = nn.ModuleList([nn.Linear(channels, channels), nn.Dropout(0.0)])

    def forward(self, hidden_states):
        residual = hidden_states
        b, c, h, w = hidden_states.shape
        x = self.group_norm(hidden_states).view(b, c, h * w).transpose(1, 2)
        q, k, v = self.to_q(x), self.to_k(x), self.to_v(x)
        q, k, v = (t.view(b, -1, self.heads, c // self.heads).transpose(1, 2) for t in (q, k, v))
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0, is_causal=False)
        x = x.transpose(1, 2).reshape(b, -1, c)
        x = self.to_out[1](self.to_out[0](x))
        return x.transpose(-1, -2).reshape(b, c, h, w) + residual


class UNet2DModel(nn.Module):
    def __init__(self, in_channels=2, out_channels=2, block_out_channels=(8, 16), norm_num_groups=4,
                 flip_sin_to_cos=True, freq_shift=0):
        super().__init__()
        self.config = dict(in_channels=in_channels, out_channels=out_channels,
                           block_out_channels=block_out_channels, norm_num_groups=norm_num_groups)
        time_embed_dim = block_out_channels[0] * 4
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], kernel_size=3, padding=1)
        self.time_proj = Timesteps(block_out_channels[0], flip_sin_to_cos, freq_shift)
        self.time_embedding = TimestepEmbedding(block_out_channels[0], time_embed_dim)
        self.down_blocks = nn.ModuleList()
        ch = block_out_channels[0]
        for i, out_ch in enumerate(block_out_channels):
            block = nn.ModuleDict({"resnet": ResnetBlock2D(ch, out_ch, time_embed_dim, norm_num_groups)})
            if i < len(block_out_channels) - 1:
                block["downsample"] = Downsample2D(out_ch)
            self.down_blocks.append(block)
            ch = out_ch
        self.mid_block = nn.ModuleDict({"resnet1": ResnetBlock2D(ch, ch, time_embed_dim, norm_num_groups),
                                        "attn": Attention(ch, heads=2, groups=norm_num_groups),
                                        "resnet2": ResnetBlock2D(ch, ch, time_embed_dim, norm_num_groups)})
        self.up_blocks = nn.ModuleList()
        rev = list(reversed(block_out_channels))
        for i, out_ch in enumerate(rev):
            skip_ch = rev[i]
            block = nn.ModuleDict({"resnet": ResnetBlock2D(ch + skip_ch, out_ch, time_embed_dim, norm_num_groups)})
            if i < len(rev) - 1:
                block["upsample"] = Upsample2D(out_ch)
            self.up_blocks.append(block)
            ch = out_ch
        self.conv_norm_out = nn.GroupNorm(norm_num_groups, block_out_channels[0], eps=1e-5)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(block_out_channels[0], out_channels, kernel_size=3, padding=1)

    def forward(self, sample, timestep):
        if not torch.is_tensor(timestep):
            timestep = torch.tensor([timestep], dtype=torch.long)
        elif len(timestep.shape) == 0:
            timestep = timestep[None]
        timesteps = timestep * torch.ones(sample.shape[0], dtype=timestep.dtype)
        emb = self.time_embedding(self.time_proj(timesteps).to(dtype=sample.dtype))
        sample = self.conv_in(sample)
        skips = []
        for block in self.down_blocks:
            sample = block["resnet"](sample, emb)
            skips.append(sample)
            if "downsample" in block:
                sample = block["downsample"](sample)
        sample = self.mid_block["resnet1"](sample, emb)
        sample = self.mid_block["attn"](sample)
        sample = self.mid_block["resnet2"](sample, emb)
        for block in self.up_blocks:
            sample = block["resnet"](torch.cat([sample, skips.pop()], dim=1), emb)
            if "upsample" in block:
                sample = block["upsample"](sample)
        return self.conv_out(self.conv_act(self.conv_norm_out(sample)))


t = torch.tensor([0, 1, 10, 999])
emb = get_timestep_embedding(t, 8, flip_sin_to_cos=True, downscale_freq_shift=0)
print("timestep emb", emb)
print("odd dim", get_timestep_embedding(t, 7).shape, get_timestep_embedding(t, 7)[:, -1].tolist())
try:
    get_timestep_embedding(t[:, None], 8)
except AssertionError as e:
    print("AssertionError:", e)

rb = ResnetBlock2D(8, 16, temb_channels=32, groups=4, output_scale_factor=2.0)
print(rb)
up = Upsample2D(4, use_conv=False)
probe = torch.arange(8.0).view(1, 2, 2, 2)
print("nearest up", up(probe)[0, 0], "sized", up(probe, output_size=(3, 5)).shape)
print("avg down", Downsample2D(2, use_conv=False)(up(probe))[0, 1])

unet = UNet2DModel()
print("config", unet.config)
print("params", sum(p.numel() for p in unet.parameters()), "modules", len(list(unet.modules())))
print("top-level", [n for n, _ in unet.named_children()])
print("up keys", [k for k in unet.state_dict() if k.startswith("up_blocks.0")][:6])
x = torch.randn(2, 2, 8, 8)
out = unet(x, 10)
print("out", out.shape, out.dtype, out[0, 0, 0, :4])
print("tensor timestep same", torch.allclose(unet(x, torch.tensor(10)), out))

betas = torch.linspace(1e-4, 0.02, 100)
alphas_cumprod = torch.cumprod(1 - betas, 0)
data = torch.tanh(torch.randn(8, 2, 8, 8))
opt = torch.optim.AdamW(unet.parameters(), lr=2e-3, weight_decay=1e-2)
ema = copy.deepcopy(unet).requires_grad_(False)
decay = 0.9
for step in range(4):
    noise = torch.randn_like(data)
    ts = torch.randint(0, 100, (data.shape[0],))
    a = alphas_cumprod[ts].view(-1, 1, 1, 1)
    noisy = a.sqrt() * data + (1 - a).sqrt() * noise
    pred = unet(noisy, ts)
    loss = F.mse_loss(pred.float(), noise.float(), reduction="mean")
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(unet.parameters(), 1.0)
    opt.step()
    with torch.no_grad():
        for pe, p in zip(ema.parameters(), unet.parameters()):
            pe.mul_(decay).add_(p, alpha=1 - decay)
    print(f"step {step} ts {ts.tolist()} loss {loss.item():.4f} grad_norm {gn.item():.4f}")
diff = max((pe - p).abs().max().item() for pe, p in zip(ema.parameters(), unet.parameters()))
print("ema lag", round(diff, 4), "ema requires_grad", any(p.requires_grad for p in ema.parameters()))
unet.eval()
with torch.no_grad():
    print("eval pred std", round(unet(noisy, ts).std().item(), 4))

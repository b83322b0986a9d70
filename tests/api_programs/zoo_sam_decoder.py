"""Segment Anything's prompt encoder and mask decoder as its reference implementation writes them: random Fourier
point embeddings (the Gaussian matrix a registered buffer), point labels selecting learned embeddings by masked
assignment, LayerNorm2d, a two-way transformer (tokens to image and image to tokens attention with downsampled
heads), ConvTranspose2d upscaling, hypernetwork MLPs producing per-mask weights applied by batched matmul, the IoU
head, mask postprocessing by bilinear interpolation, and a few training steps with focal and dice losses."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(15)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class LayerNorm2d(nn.Module):
    def __init__(self, num_channels, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_channels))
        self.bias = nn.Parameter(torch.zeros(num_channels))
        self.eps = eps

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class PositionEmbeddingRandom(nn.Module):
    def __init__(self, num_pos_feats=4, scale=1.0):
        super().__init__()
        self.register_buffer("positional_encoding_gaussian_matrix",
                             scale * torch.from_numpy(rng.standard_normal((2, num_pos_feats)).astype(np.float32)))

    def _pe_encoding(self, coords):
        coords = 2 * coords - 1
        coords = coords @ self.positional_encoding_gaussian_matrix
        coords = 2 * np.pi * coords
        return torch.cat([torch.sin(coords), torch.cos(coords)], dim=-1)

    def forward(self, size):
        h, w = size
        grid = torch.ones((h, w), dtype=torch.float32)
        y_embed = (grid.cumsum(dim=0) - 0.5) / h
        x_embed = (grid.cumsum(dim=1) - 0.5) / w
        return self._pe_encoding(torch.stack([x_embed, y_embed], dim=-1)).permute(2, 0, 1)

    def forward_with_coords(self, coords_input, image_size):
        coords = coords_input.clone()
        coords[:, :, 0] = coords[:, :, 0] / image_size[1]
        coords[:, :, 1] = coords[:, :, 1] / image_size[0]
        return self._pe_encoding(coords.to(torch.float))


class Attention(nn.Module):
    def __init__(self, embedding_dim, num_heads, downsample_rate=1):
        super().__init__()
        self.internal_dim = embedding_dim // downsample_rate
        self.num_heads = num_heads
        self.q_proj = nn.Linear(embedding_dim, self.internal_dim)
        self.k_proj = nn.Linear(embedding_dim, self.internal_dim)
        self.v_proj = nn.Linear(embedding_dim, self.internal_dim)
        self.out_proj = nn.Linear(self.internal_dim, embedding_dim)

    def _separate_heads(self, x, num_heads):
        b, n, c = x.shape
        return x.reshape(b, n, num_heads, c // num_heads).transpose(1, 2)

    def forward(self, q, k, v):
        q = self._separate_heads(self.q_proj(q), self.num_heads)
        k = self._separate_heads(self.k_proj(k), self.num_heads)
        v = self._separate_heads(self.v_proj(v), self.num_heads)
        attn = q @ k.permute(0, 1, 3, 2) / (q.shape[-1] ** 0.5)
        out = torch.softmax(attn, dim=-1) @ v
        b, h, n, c = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(b, n, h * c))


class TwoWayBlock(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.self_attn = Attention(dim, heads)
        self.cross_t2i = Attention(dim, heads, downsample_rate=2)
        self.mlp = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.cross_i2t = Attention(dim, heads, downsample_rate=2)
        self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in range(4))

    def forward(self, queries, keys, query_pe, key_pe):
        queries = self.norms[0](queries + self.self_attn(queries + query_pe, queries + query_pe, queries))
        q = queries + query_pe
        k = keys + key_pe
        queries = self.norms[1](queries + self.cross_t2i(q, k, keys))
        queries = self.norms[2](queries + self.mlp(queries))
        q = queries + query_pe
        keys = self.norms[3](keys + self.cross_i2t(k, q, queries))
        return queries, keys


class MaskDecoder(nn.Module):
    def __init__(self, dim=8, num_multimask_outputs=3):
        super().__init__()
        self.num_mask_tokens = num_multimask_outputs + 1
        self.pe_layer = PositionEmbeddingRandom(dim // 2)
        self.point_embeddings = nn.ModuleList(nn.Embedding(1, dim) for _ in range(2))
        self.not_a_point_embed = nn.Embedding(1, dim)
        self.iou_token = nn.Embedding(1, dim)
        self.mask_tokens = nn.Embedding(self.num_mask_tokens, dim)
        self.block = TwoWayBlock(dim)
        self.output_upscaling = nn.Sequential(nn.ConvTranspose2d(dim, dim // 2, 2, 2), LayerNorm2d(dim // 2), nn.GELU(),
                                              nn.ConvTranspose2d(dim // 2, dim // 4, 2, 2), nn.GELU())
        self.hyper = nn.ModuleList(nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim // 4))
                                   for _ in range(self.num_mask_tokens))
        self.iou_head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, self.num_mask_tokens))

    def embed_points(self, points, labels, image_size):
        points = points + 0.5
        pe = self.pe_layer.forward_with_coords(points, image_size)
        pe[labels == -1] = 0.0
        pe[labels == -1] += self.not_a_point_embed.weight
        pe[labels == 0] += self.point_embeddings[0].weight
        pe[labels == 1] += self.point_embeddings[1].weight
        return pe

    def forward(self, image_embeddings, points, labels, image_size):
        sparse = self.embed_points(points, labels, image_size)
        output_tokens = torch.cat([self.iou_token.weight, self.mask_tokens.weight], dim=0)
        tokens = torch.cat((output_tokens.unsqueeze(0).expand(sparse.size(0), -1, -1), sparse), dim=1)
        src = torch.repeat_interleave(image_embeddings, tokens.shape[0], dim=0)
        b, c, h, w = src.shape
        pos_src = self.pe_layer((h, w)).unsqueeze(0).expand(b, -1, -1, -1)
        hs, src = self.block(tokens, src.flatten(2).permute(0, 2, 1), tokens, pos_src.flatten(2).permute(0, 2, 1))
        iou_token_out, mask_tokens_out = hs[:, 0, :], hs[:, 1: 1 + self.num_mask_tokens, :]
        upscaled = self.output_upscaling(src.transpose(1, 2).view(b, c, h, w))
        hyper_in = torch.stack([mlp(mask_tokens_out[:, i, :]) for i, mlp in enumerate(self.hyper)], dim=1)
        b, c, h, w = upscaled.shape
        masks = (hyper_in @ upscaled.view(b, c, h * w)).view(b, -1, h, w)
        return masks, self.iou_head(iou_token_out)


dec = MaskDecoder()
print("buffer", [n for n, _ in dec.named_buffers()], "params", sum(p.numel() for p in dec.parameters()))
print(dec.output_upscaling)
with torch.no_grad():
    for name, p in dec.named_parameters():
        p.copy_(torch.from_numpy((0.4 * rng.standard_normal(p.shape) + (1.0 if "norms" in name and "weight" in name
                                                                         else 0.0)).astype(np.float32)))
pe = dec.pe_layer((2, 3))
print("dense pe", tuple(pe.shape), r(pe[:, 1, 2], 8))
image_embeddings = torch.from_numpy(rng.standard_normal((1, 8, 4, 4)).astype(np.float32))
points = torch.tensor([[[10.0, 20.0], [30.0, 5.0], [0.0, 0.0]], [[15.0, 15.0], [0.0, 0.0], [0.0, 0.0]]])
labels = torch.tensor([[1, 0, -1], [1, -1, -1]])
sp = dec.embed_points(points, labels, (32, 32))
print("sparse", tuple(sp.shape), r(sp[0, 2], 4), r(sp[1, 1] - sp[0, 2], 2))
masks, iou = dec(image_embeddings, points, labels, (32, 32))
print("masks", tuple(masks.shape), r(masks, 4), "iou", r(iou, 4))
best = iou[:, 1:].argmax(dim=1)
print("best multimask", best.tolist(), tuple(masks[torch.arange(2), best + 1].shape))
up = F.interpolate(masks, (32, 32), mode="bilinear", align_corners=False)
print("postprocess", tuple(up.shape), (up > 0.0).sum().item(), r(up[0, 0, 0], 4))


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2):
    prob = inputs.sigmoid()
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = prob * targets + (1 - prob) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).mean()


def dice_loss(inputs, targets):
    inputs = inputs.sigmoid().flatten(1)
    targets = targets.flatten(1)
    numerator = 2 * (inputs * targets).sum(1)
    return (1 - (numerator + 1) / (inputs.sum(-1) + targets.sum(-1) + 1)).mean()


gt = torch.from_numpy((rng.random((2, 1, 16, 16)) > 0.6).astype(np.float32))
opt = torch.optim.AdamW(dec.parameters(), lr=1e-3, weight_decay=0.1)
for step in range(3):
    opt.zero_grad()
    masks, iou = dec(image_embeddings, points, labels, (32, 32))
    m0 = masks[:, :1]
    with torch.no_grad():
        inter = ((m0 > 0) & (gt > 0)).sum((1, 2, 3)).float()
        union = ((m0 > 0) | (gt > 0)).sum((1, 2, 3)).float()
        actual_iou = inter / union.clamp(min=1)
    loss = 20 * sigmoid_focal_loss(m0, gt) + dice_loss(m0, gt) + F.mse_loss(iou[:, 0], actual_iou)
    loss.backward()
    if step == 0:
        print("grads", round(dec.mask_tokens.weight.grad.norm().item(), 4),
              round(dec.output_upscaling[0].weight.grad.norm().item(), 4), "pe buffer grad",
              dec.pe_layer.positional_encoding_gaussian_matrix.grad)
    opt.step()
    print("step", step, round(loss.item(), 4), r(actual_iou, 2))

"""I-JEPA's multi-block masking and target gathering: block sizes sampled from a seeded Generator with
scale/aspect bounds, masks as flattened patch indices from torch.nonzero, context masks made disjoint from target
blocks, the collator trimming every sample to the shortest mask, apply_masks by torch.gather with expanded
indices, repeat_interleave_batch for several target blocks, targets layer-normed from a no_grad teacher, the
smooth-L1 prediction loss, and MAE-style argsort masking with ids_restore for comparison."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
H = W = 6
D = 8


def sample_block_size(generator, scale, aspect_scale):
    _rand = torch.rand(1, generator=generator).item()
    min_s, max_s = scale
    mask_scale = min_s + _rand * (max_s - min_s)
    max_keep = int(H * W * mask_scale)
    min_ar, max_ar = aspect_scale
    aspect_ratio = min_ar + _rand * (max_ar - min_ar)
    h = int(round(math.sqrt(max_keep * aspect_ratio)))
    w = int(round(math.sqrt(max_keep / aspect_ratio)))
    while h >= H:
        h -= 1
    while w >= W:
        w -= 1
    return h, w


def sample_block_mask(b_size, acceptable_regions=None, g=None):
    h, w = b_size
    for _ in range(20):
        top = torch.randint(0, H - h, (1,), generator=g)
        left = torch.randint(0, W - w, (1,), generator=g)
        mask = torch.zeros((H, W), dtype=torch.int32)
        mask[top : top + h, left : left + w] = 1
        if acceptable_regions is not None:
            for k in acceptable_regions:
                mask *= k
        mask = torch.nonzero(mask.flatten())
        if len(mask) > 2:
            break
    mask = mask.squeeze()
    mask_complement = torch.ones((H, W), dtype=torch.int32)
    mask_complement[top : top + h, left : left + w] = 0
    return mask, mask_complement


g = torch.Generator().manual_seed(42)
p_size = sample_block_size(g, (0.15, 0.2), (0.75, 1.5))
e_size = sample_block_size(g, (0.85, 1.0), (1.0, 1.0))
print("block sizes", p_size, e_size)
collated_enc, collated_pred = [], []
min_keep_pred, min_keep_enc = H * W, H * W
for b in range(3):
    masks_p, masks_C = [], []
    for _ in range(2):
        mask, mask_C = sample_block_mask(p_size, g=g)
        masks_p.append(mask)
        masks_C.append(mask_C)
        min_keep_pred = min(min_keep_pred, len(mask))
    collated_pred.append(masks_p)
    mask, _ = sample_block_mask(e_size, acceptable_regions=masks_C, g=g)
    min_keep_enc = min(min_keep_enc, len(mask))
    collated_enc.append([mask])
collated_pred = [[cm[:min_keep_pred] for cm in cm_list] for cm_list in collated_pred]
collated_pred = torch.utils.data.default_collate(collated_pred)
collated_enc = [[cm[:min_keep_enc] for cm in cm_list] for cm_list in collated_enc]
collated_enc = torch.utils.data.default_collate(collated_enc)
print(
    "masks",
    len(collated_pred),
    collated_pred[0].shape,
    collated_enc[0].shape,
    collated_pred[0].dtype,
    collated_enc[0][0].tolist()[:5],
)
overlap = [
    len(set(collated_enc[0][i].tolist()) & set(collated_pred[j][i].tolist())) for i in range(3) for j in range(2)
]
print("disjoint", overlap)


def apply_masks(x, masks):
    all_x = []
    for m in masks:
        mask_keep = m.unsqueeze(-1).repeat(1, 1, x.size(-1))
        all_x += [torch.gather(x, dim=1, index=mask_keep)]
    return torch.cat(all_x, dim=0)


def repeat_interleave_batch(x, B, repeat):
    N = len(x) // B
    return torch.cat([torch.cat([x[i * B : (i + 1) * B] for _ in range(repeat)], dim=0) for i in range(N)], dim=0)


tokens = torch.randn(3, H * W, D)
teacher = nn.Sequential(nn.Linear(D, D), nn.GELU())
student = nn.Sequential(nn.Linear(D, D), nn.GELU())
predictor = nn.Linear(D, D)
with torch.no_grad():
    h = F.layer_norm(teacher(tokens), (D,))
    h = apply_masks(h, collated_pred)
    h = repeat_interleave_batch(h, 3, repeat=len(collated_enc))
ctx = apply_masks(student(tokens), collated_enc)
z = predictor(ctx.mean(1, keepdim=True).expand(-1, collated_pred[0].shape[1], -1).repeat(len(collated_pred), 1, 1))
loss = F.smooth_l1_loss(z, h)
loss.backward()
print(
    "jepa",
    h.shape,
    ctx.shape,
    z.shape,
    round(loss.item(), 4),
    round(predictor.weight.grad.norm().item(), 4),
    ctx.grad_fn.name(),
)
print(
    "repeat_interleave",
    repeat_interleave_batch(torch.arange(6), 3, 2).tolist(),
    torch.arange(3).repeat_interleave(2).tolist(),
    torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 3])).tolist(),
)

# MAE-style random masking with ids_restore for comparison
noise = torch.rand(3, H * W, generator=g)
ids_shuffle = torch.argsort(noise, dim=1)
ids_restore = torch.argsort(ids_shuffle, dim=1)
len_keep = int(H * W * 0.25)
x_masked = torch.gather(tokens, 1, ids_shuffle[:, :len_keep].unsqueeze(-1).repeat(1, 1, D))
mask = torch.ones(3, H * W)
mask[:, :len_keep] = 0
mask = torch.gather(mask, dim=1, index=ids_restore)
print(
    "mae",
    x_masked.shape,
    mask.sum(1).tolist(),
    torch.equal(torch.gather(ids_shuffle, 1, ids_restore), torch.arange(H * W).expand(3, -1)),
)
print(
    torch.nonzero(torch.tensor([[0, 1], [1, 0]])).tolist(),
    torch.nonzero(torch.tensor([0, 3, 0, 5]), as_tuple=True),
    torch.tensor([[0, 1]]).nonzero().squeeze().shape,
    torch.argwhere(torch.tensor([0.0, 2.0])).tolist(),
)
for fn in [
    lambda: torch.gather(tokens, 1, collated_pred[0]),
    lambda: torch.gather(tokens, 1, collated_pred[0].unsqueeze(-1).repeat(1, 1, D).int()).dtype,
    lambda: torch.randint(0, 0, (1,), generator=g),
]:
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)

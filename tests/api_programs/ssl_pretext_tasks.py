"""Classic pretext tasks: RotNet's four rotations by torch.rot90 (dims and negative k) stacked with
repeat_interleave labels, jigsaw puzzles cut by unfold/fold and shuffled with a permutation set chosen by maximal
Hamming distance (itertools.permutations, torch.cdist with p=0), relative patch location with torch.stack of
neighbours, colorization targets quantized by torch.bucketize, a shared-trunk classifier trained on all
three, and the errors of rot90/unfold/bucketize."""

import itertools

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
imgs = torch.rand(2, 3, 6, 6)

# RotNet
rotated = torch.cat([torch.rot90(imgs, k, dims=(2, 3)) for k in range(4)])
rot_labels = torch.arange(4).repeat_interleave(imgs.shape[0])
print(
    "rot",
    rotated.shape,
    rot_labels.tolist(),
    torch.equal(torch.rot90(imgs, -1, (2, 3)), torch.rot90(imgs, 3, (2, 3))),
    torch.equal(torch.rot90(imgs, 2, (2, 3)), imgs.flip(2).flip(3)),
    torch.rot90(imgs, 1, (3, 2)).shape,
)
print(torch.rot90(torch.arange(6).view(2, 3)).tolist(), torch.rot90(torch.arange(6).view(2, 3), 5, [1, 0]).tolist())

# Jigsaw: 2x2 tiles, permutations with maximal Hamming distance
perms_all = torch.tensor(list(itertools.permutations(range(4))))
chosen = [0]
for _ in range(3):
    d = torch.cdist(perms_all[chosen].float(), perms_all.float(), p=0).min(0).values
    chosen.append(int(d.argmax()))
perm_set = perms_all[chosen]
print("perm set", perm_set.tolist(), torch.cdist(perm_set.float(), perm_set.float(), p=0).tolist()[0])
tiles = F.unfold(imgs, kernel_size=3, stride=3)
print("tiles", tiles.shape, tiles.stride())
tiles = tiles.view(2, 3, 9, 4)
labels = torch.tensor([1, 3])
shuffled = torch.stack([tiles[i][:, :, perm_set[labels[i]]] for i in range(2)])
puzzle = F.fold(shuffled.view(2, 27, 4), output_size=(6, 6), kernel_size=3, stride=3)
print(
    "puzzle",
    puzzle.shape,
    torch.equal(
        puzzle[0, :, :3, :3],
        imgs[
            0,
            :,
            perm_set[1][0] // 2 * 3 : perm_set[1][0] // 2 * 3 + 3,
            perm_set[1][0] % 2 * 3 : perm_set[1][0] % 2 * 3 + 3,
        ],
    ),
)
inv = torch.argsort(perm_set[labels], dim=1)
restored = F.fold(torch.stack([shuffled[i][:, :, inv[i]] for i in range(2)]).view(2, 27, 4), (6, 6), 3, stride=3)
print(
    "restored",
    torch.equal(restored, imgs),
    F.fold(F.unfold(imgs, 3, stride=2), (6, 6), 3, stride=2).sum().round(decimals=2).item(),
)

# relative patch location: the centre and one of 8 neighbours on a 3x3 grid of 2x2 patches
grid = imgs.unfold(2, 2, 2).unfold(3, 2, 2)
print("grid", grid.shape, grid.is_contiguous())
pos = torch.tensor([0, 5])
offsets = torch.tensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1], [2, 2]])
centre = grid[:, :, 1, 1]
neigh = torch.stack([grid[b, :, offsets[p, 0], offsets[p, 1]] for b, p in enumerate(pos)])
print("relpos", centre.shape, neigh.shape, torch.equal(neigh[1], imgs[1, :, 4:6, 0:2]))

# colorization: quantized chroma targets
boundaries = torch.linspace(-0.5, 0.5, 9)[1:-1]
chroma = imgs[:, 1:] - imgs[:, :1]
bins = torch.bucketize(chroma, boundaries)
print(
    "bucketize",
    bins.shape,
    bins.dtype,
    torch.bincount(bins.flatten(), minlength=8).tolist(),
    torch.bucketize(torch.tensor([-0.375, 0.0, 0.375]), boundaries, right=True).tolist(),
    torch.bucketize(torch.tensor([0.0]), boundaries, out_int32=True).dtype,
)

trunk = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
heads = nn.ModuleDict({"rot": nn.Linear(8, 4), "jigsaw": nn.Linear(8, 4), "relpos": nn.Linear(16, 8)})
opt = torch.optim.SGD(list(trunk.parameters()) + list(heads.parameters()), lr=0.1, momentum=0.9)
for step in range(3):
    l_rot = F.cross_entropy(heads["rot"](trunk(rotated)), rot_labels)
    l_jig = F.cross_entropy(heads["jigsaw"](trunk(puzzle)), labels)
    feats = torch.cat([trunk(F.interpolate(centre, size=4)), trunk(F.interpolate(neigh, size=4))], dim=1)
    l_rel = F.cross_entropy(heads["relpos"](feats), pos)
    loss = l_rot + l_jig + 0.5 * l_rel
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, [round(v.item(), 4) for v in (l_rot, l_jig, l_rel)], list(heads.keys()))
for fn in [
    lambda: torch.rot90(imgs, 1, (2, 2)),
    lambda: torch.rot90(imgs, 1, (2,)),
    lambda: F.unfold(imgs[0, 0], 3),
    lambda: F.fold(tiles.view(2, 27, 4), (6, 6), 3),
    lambda: torch.bucketize(chroma, boundaries.flip(0).view(1, -1)),
    lambda: torch.cdist(perm_set.float(), perm_set.float(), p=-1),
]:
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)

"""A Dreamer replay buffer: uint8 image episodes in numpy, fixed-length sequence chunks sampled by index
arithmetic and unfold, converted with from_numpy/as_tensor (strides, dtypes, sharing), and the conversion mistakes."""

import numpy as np
import torch
import torch.nn.functional as F
from torch.distributions import Categorical, OneHotCategorical

rng = np.random.default_rng(0)
torch.manual_seed(0)
torch.set_printoptions(precision=4)
L, H, W, C, A = 12, 4, 4, 3, 3
episode = {
    "image": rng.integers(0, 256, (L, H, W, C), dtype=np.uint8),
    "action": np.eye(A, dtype=np.float32)[rng.integers(0, A, L)],
    "reward": rng.standard_normal(L).astype(np.float32),
    "is_first": np.zeros(L, dtype=bool),
    "is_terminal": np.zeros(L, dtype=bool),
}
episode["is_first"][0] = True
episode["is_terminal"][-1] = True
img = torch.from_numpy(episode["image"])
print(img.dtype, img.shape, img.stride(), img.is_contiguous())
obs = img.permute(0, 3, 1, 2).float() / 255.0 - 0.5
print(obs.shape, obs.stride(), obs.dtype, round(obs.mean().item(), 4))
chw = img.permute(0, 3, 1, 2)
print(chw.stride(), chw.is_contiguous(), chw.is_contiguous(memory_format=torch.channels_last))
# from_numpy shares memory; as_tensor with a dtype copies
r = torch.from_numpy(episode["reward"])
r[0] = 100.0
print(episode["reward"][0], torch.as_tensor(episode["reward"], dtype=torch.float64)[0].dtype)
episode["reward"][0] = 0.5
print(r[0])
print(torch.from_numpy(episode["is_first"]).dtype, torch.as_tensor(episode["is_terminal"]).float().sum())
print(torch.from_numpy(episode["image"][:, ::2, :, 1]).stride(), torch.from_numpy(episode["image"][::-1].copy()).shape)

# sequence chunks: unfold and gather
T = 5
idx = torch.arange(L - T + 1)
chunks = torch.arange(L).unfold(0, T, 1)
print(chunks.shape, chunks.stride(), chunks[-1])
starts = torch.randint(0, L - T + 1, (4,), generator=torch.Generator().manual_seed(3))
seq_idx = starts[:, None] + torch.arange(T)
print(seq_idx)
batch = {k: torch.as_tensor(v)[seq_idx] for k, v in episode.items()}
print({k: (tuple(v.shape), v.dtype) for k, v in batch.items()})
print(batch["action"].argmax(-1)[0], batch["reward"].round(decimals=4)[0])
cont = 1.0 - batch["is_terminal"].float()
print(cont.sum(1), (~batch["is_terminal"]).dtype)
img_seq = torch.as_tensor(episode["image"]).unfold(0, T, 2)
print(img_seq.shape, img_seq.stride(), img_seq.movedim(-1, 1).shape)

# stacking steps of a new episode, with the mistakes such loaders make
steps = [episode["reward"][i] for i in range(3)]
print(torch.tensor(steps), torch.tensor(np.stack(steps)).dtype, torch.as_tensor(steps).dtype)
for bad in [
    lambda: torch.stack([torch.zeros(2), np.zeros(2)]),
    lambda: torch.cat([torch.zeros(1), np.float32(1.0)]),
    lambda: torch.stack([torch.zeros(2), torch.Size([2])]),
    lambda: torch.stack([torch.zeros(2), torch.float32]),
    lambda: torch.from_numpy(np.array(["a", "b"])),
    lambda: torch.from_numpy([1, 2]),
    lambda: torch.from_numpy(np.zeros(2, dtype=np.float16).astype(">f2")),
    lambda: F.one_hot(torch.tensor([0, 3]), 3),
    lambda: F.one_hot(torch.tensor([0.0, 1.0]), 3),
    lambda: F.one_hot(torch.tensor([-1, 1]), 3),
    lambda: Categorical(logits=torch.zeros(A)).sample((0,)),
    lambda: OneHotCategorical(logits=torch.zeros(2, A)).sample(torch.Size([2, 0])),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print(F.one_hot(torch.tensor([[0, 2]])), F.one_hot(torch.tensor([], dtype=torch.long), 4).shape)
print(F.one_hot(torch.arange(3), -1).shape, F.one_hot(torch.tensor(2), 4))
print(Categorical(logits=torch.zeros(A)).sample((2, 3)).shape, torch.multinomial(torch.ones(2, A), 2).shape)

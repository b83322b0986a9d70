"""The most-viewed StackOverflow indexing answers as pasted into code: per-row picks with gather, advanced
indexing and arange pairs, argmax with keepdim, one-hot three ways, padding masks from lengths, masked softmax
and masked means, expand vs repeat vs repeat_interleave (which share memory), view vs reshape and the
contiguity error, squeeze/unsqueeze/None, flatten/unflatten, permute for channels, stack and cat."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


def show(name, t):
    print(name, tuple(t.shape), t.dtype, t.stride(), t.round(decimals=4).tolist())


# per-row indices
x = T(4, 5)
idx = torch.tensor([1, 0, 4, 2])
show("gather", x.gather(1, idx.unsqueeze(1)).squeeze(1))
show("adv", x[torch.arange(4), idx])
show("adv_range", x[range(4), idx])
show("gather_rows", torch.gather(x, 0, torch.tensor([[0, 1, 2, 3, 0]])))
am = x.argmax(dim=1)
print("argmax", am.tolist(), am.dtype, x.argmax().item(), x.argmax(dim=1, keepdim=True).shape)
vals, inds = torch.max(x, dim=0)
print("max0", vals.round(decimals=4).tolist(), inds.tolist())
print("argmin_keep", x.argmin(0, keepdim=True).tolist())
catch("gather_dtype", lambda: x.gather(1, idx.unsqueeze(1).int()))
catch("gather_rank", lambda: x.gather(1, idx))
catch("adv_oob", lambda: x[torch.arange(4), torch.tensor([1, 0, 5, 2])])
catch("adv_float", lambda: x[torch.tensor([0.0, 1.0])])

# one-hot three ways
labels = torch.tensor([2, 0, 3, 1, 2])
oh1 = torch.zeros(5, 4).scatter_(1, labels.unsqueeze(1), 1.0)
oh2 = F.one_hot(labels, num_classes=4)
oh3 = torch.eye(4)[labels]
print("onehot", oh1.tolist(), oh2.dtype, oh3.dtype, torch.equal(oh1, oh3), torch.equal(oh2.float(), oh1))
print("onehot_auto", F.one_hot(labels).shape, F.one_hot(torch.tensor([[0, 1], [2, 0]]), 3).shape)
catch("onehot_float", lambda: F.one_hot(labels.float(), 4))
catch("onehot_small", lambda: F.one_hot(labels, 3))
catch("onehot_neg", lambda: F.one_hot(torch.tensor([-1, 0]), 3))
catch("scatter_dtype", lambda: torch.zeros(5, 4).scatter_(1, labels.unsqueeze(1).float(), 1.0))

# padding masks
lengths = torch.tensor([3, 1, 4])
mask = torch.arange(4)[None, :] < lengths[:, None]
print("mask", mask.tolist(), mask.dtype)
mask2 = torch.arange(lengths.max()).expand(len(lengths), -1) < lengths.unsqueeze(1)
print("mask_eq", torch.equal(mask, mask2))
scores = T(3, 4)
att = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
show("masked_softmax", att)
att2 = scores.masked_fill(mask == 0, -1e9)
show("masked_fill_1e9", F.softmax(att2, -1))
feats = T(3, 4, 2)
mmean = (feats * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(-1)
show("masked_mean", mmean)
print("masked_select", torch.masked_select(scores, mask).shape, scores[mask].round(decimals=4).tolist())
allmask = torch.zeros(1, 3, dtype=torch.bool)
print("all_masked", T(1, 3).masked_fill(~allmask, float("-inf")).softmax(-1).tolist())
catch("masked_fill_float", lambda: scores.masked_fill(mask.float(), 0.0))
catch("masked_fill_shape", lambda: scores.masked_fill(mask[:, :3], 0.0))

# expand / repeat / repeat_interleave
v = torch.tensor([[1.0], [2.0], [3.0]])
e = v.expand(3, 4)
r = v.repeat(1, 4)
print("expand", e.stride(), e.is_contiguous(), e.data_ptr() == v.data_ptr(), e.storage_offset())
print("repeat", r.stride(), r.is_contiguous(), r.data_ptr() == v.data_ptr())
print("expand_-1", v.expand(-1, 2).shape, torch.tensor([1, 2]).repeat(2, 3).tolist())
print("interleave", torch.tensor([1, 2, 3]).repeat_interleave(2).tolist(),
      torch.repeat_interleave(torch.tensor([[1, 2], [3, 4]]), torch.tensor([1, 2]), dim=0).tolist(),
      torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist())
catch("expand_bad", lambda: v.expand(2, 4))
catch("expand_inplace", lambda: e.add_(1))
catch("repeat_few", lambda: v.repeat(2))

# view vs reshape vs contiguous
a = torch.arange(12.0).reshape(3, 4)
at = a.t()
print("t", at.stride(), at.is_contiguous(), at.contiguous().stride())
catch("view_t", lambda: at.view(12))
print("reshape_t", at.reshape(12).tolist(), at.reshape(-1).data_ptr() == a.data_ptr())
print("view_ok", a.view(2, 6).data_ptr() == a.data_ptr(), a.view(-1, 3).shape)
catch("view_bad", lambda: a.view(5, -1))
catch("view_two_neg", lambda: a.view(-1, -1))
catch("reshape_bad", lambda: a.reshape(7))

# squeeze / unsqueeze / None
b = torch.zeros(1, 3, 1, 2)
print("squeeze", b.squeeze().shape, b.squeeze(0).shape, b.squeeze(1).shape, b.squeeze((0, 2)).shape)
print("unsq", b[None].shape, b[..., None].shape, b[:, None, :, 0].shape, b.unsqueeze(-1).shape)
catch("unsq_range", lambda: b.unsqueeze(6))
catch("squeeze_range", lambda: b.squeeze(4))

# flatten / unflatten / permute
img = torch.arange(24.0).reshape(2, 3, 2, 2)
print("flatten", img.flatten().shape, img.flatten(1).shape, img.flatten(2, 3).shape, torch.flatten(img, 0, 1).shape)
print("unflatten", img.flatten(1).unflatten(1, (3, 4)).shape, img.unflatten(1, (-1, 1)).shape)
hwc = img.permute(0, 2, 3, 1)
print("permute", hwc.shape, hwc.stride(), hwc.is_contiguous(), hwc.is_contiguous(memory_format=torch.channels_last))
print("movedim", torch.movedim(img, 1, -1).stride(), img.transpose(1, 3).shape)
catch("permute_bad", lambda: img.permute(0, 2, 1))
catch("permute_dup", lambda: img.permute(0, 1, 1, 2))

# stack / cat lists
parts = [torch.full((2, 3), float(i)) for i in range(3)]
print("stack", torch.stack(parts).shape, torch.stack(parts, dim=1).shape, torch.stack(parts, -1).shape)
print("cat", torch.cat(parts).shape, torch.cat(parts, 1).shape, torch.cat([p.unsqueeze(0) for p in parts]).shape)
print("hv", torch.vstack(parts).shape, torch.hstack(parts).shape, torch.dstack(parts).shape,
      torch.column_stack([torch.ones(3), torch.zeros(3)]).tolist())
catch("stack_bad", lambda: torch.stack([torch.ones(2, 3), torch.ones(3, 2)]))
catch("cat_bad", lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]))
catch("cat_tensor", lambda: torch.cat(torch.ones(2, 3)))
catch("stack_empty", lambda: torch.stack([]))
catch("cat_dtype", lambda: torch.cat([torch.ones(2), torch.ones(2, dtype=torch.int64)]).dtype)

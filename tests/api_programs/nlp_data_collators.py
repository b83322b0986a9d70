"""HuggingFace-style data collators without a tokenizer: padding collators (right/left, pad_to_multiple_of),
an MLM collator's 80/10/10 masking driven by given probabilities, a causal-LM collator's shifted labels, a
length-grouped sampler, default_collate on dicts of features, and the torch.tensor errors that ragged or
None-bearing features raise."""

# ruff: noqa
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler, default_collate

rng = np.random.default_rng(6)
PAD, MASK, VOCAB = 0, 1, 30

features = [{"input_ids": rng.integers(2, VOCAB, size=n).tolist(), "label": int(n % 3)} for n in (5, 3, 7, 2, 6, 4)]
print("lengths", [len(f["input_ids"]) for f in features])


def pad_features(batch, padding_side="right", pad_to_multiple_of=None, label_pad=None):
    max_len = max(len(f["input_ids"]) for f in batch)
    if pad_to_multiple_of is not None and max_len % pad_to_multiple_of != 0:
        max_len = ((max_len // pad_to_multiple_of) + 1) * pad_to_multiple_of
    ids, masks = [], []
    for f in batch:
        diff = max_len - len(f["input_ids"])
        if padding_side == "right":
            ids.append(f["input_ids"] + [PAD] * diff)
            masks.append([1] * len(f["input_ids"]) + [0] * diff)
        else:
            ids.append([PAD] * diff + f["input_ids"])
            masks.append([0] * diff + [1] * len(f["input_ids"]))
    out = {"input_ids": torch.tensor(ids, dtype=torch.long), "attention_mask": torch.tensor(masks)}
    if "label" in batch[0]:
        out["labels"] = torch.tensor([f["label"] for f in batch], dtype=torch.long)
    return out


b = pad_features(features[:3])
print("right", b["input_ids"].tolist(), b["attention_mask"].sum(-1).tolist(), b["labels"].tolist())
b = pad_features(features[:3], padding_side="left", pad_to_multiple_of=8)
print("left", tuple(b["input_ids"].shape), b["input_ids"][1].tolist(), b["attention_mask"][1].tolist())


def torch_mask_tokens(inputs, special_tokens_mask, probs, mlm_probability=0.15):
    """The MLM collator's rule, with its three random draws given as tensors of uniforms."""
    labels = inputs.clone()
    probability_matrix = torch.full(labels.shape, mlm_probability)
    probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
    masked_indices = probs[0] < probability_matrix
    labels[~masked_indices] = -100
    indices_replaced = (probs[1] < 0.8) & masked_indices
    inputs[indices_replaced] = MASK
    indices_random = (probs[2] < 0.5) & masked_indices & ~indices_replaced
    random_words = torch.randint(VOCAB, labels.shape, dtype=torch.long)
    inputs[indices_random] = random_words[indices_random] * 0 + 29
    return inputs, labels


b = pad_features(features)
special = b["input_ids"] == PAD
probs = torch.from_numpy(rng.random((3,) + tuple(b["input_ids"].shape)).astype(np.float32))
inputs, labels = torch_mask_tokens(b["input_ids"].clone(), special, probs, mlm_probability=0.3)
print("mlm inputs", inputs.tolist())
print("mlm labels", labels.tolist())
print("masked count", (labels != -100).sum().item(), (inputs == MASK).sum().item(), (inputs == 29).sum().item())

# causal LM: labels are the inputs with padding ignored; the model shifts them
clm = b["input_ids"].clone()
clm_labels = clm.masked_fill(b["attention_mask"] == 0, -100)
shift = clm_labels[..., 1:].contiguous()
print("clm labels", clm_labels[3].tolist(), "shifted", shift[3].tolist(), shift.ne(-100).sum().item())


class LengthGroupedSampler(Sampler):
    def __init__(self, lengths, batch_size, mega=2):
        self.lengths, self.batch_size, self.mega = lengths, batch_size, mega

    def __iter__(self):
        order = list(range(len(self.lengths)))
        megabatch_size = self.mega * self.batch_size
        megabatches = [order[i: i + megabatch_size] for i in range(0, len(order), megabatch_size)]
        megabatches = [sorted(mb, key=lambda i: self.lengths[i], reverse=True) for mb in megabatches]
        return iter([i for mb in megabatches for i in mb])

    def __len__(self):
        return len(self.lengths)


class Features(Dataset):
    def __init__(self, feats):
        self.feats = feats

    def __len__(self):
        return len(self.feats)

    def __getitem__(self, i):
        return self.feats[i]


sampler = LengthGroupedSampler([len(f["input_ids"]) for f in features], batch_size=2)
print("sampler order", list(sampler))
loader = DataLoader(Features(features), batch_size=2, sampler=sampler, collate_fn=pad_features)
for batch in loader:
    print("batch", tuple(batch["input_ids"].shape), batch["labels"].tolist(), batch["attention_mask"].sum().item())

# default_collate on fixed-length features: lists become per-position tensors, strings stay lists
fixed = [{"input_ids": torch.tensor([3, 4]), "label": 1, "text": "a", "score": 0.5},
         {"input_ids": torch.tensor([5, 6]), "label": 0, "text": "b", "score": 1.5}]
c = default_collate(fixed)
print("default_collate", {k: (v.tolist(), v.dtype) if torch.is_tensor(v) else v for k, v in c.items()})
c = default_collate([{"ids": [1, 2]}, {"ids": [3, 4]}])
print("list feature", [t.tolist() for t in c["ids"]])
try:
    default_collate([{"ids": torch.tensor([1, 2])}, {"ids": torch.tensor([3])}])
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])


def err(data):
    try:
        torch.tensor(data)
    except Exception as e:
        print(type(e).__name__, "|", e)


err([f["input_ids"] for f in features[:2]])
err([[[1, 2]], [[3]]])
err([f["label"] for f in features] + [None])
err([[1, 2], [3, None]])
err(["a", "b"])
err([1, "a"])
err([[1, 2], 3])
print("nested ok", torch.tensor([[1, 2], (3, 4)]).tolist(), torch.tensor([[True, 0], [2, 3]]).dtype,
      torch.tensor([[1, 2.5]]).dtype, torch.tensor([]).shape, torch.tensor([[]]).shape)

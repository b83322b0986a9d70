"""HuggingFace Trainer utilities written inline: LengthGroupedSampler's megabatches (randperm with a generator,
sorted by length), DataCollatorWithPadding to a multiple of 8, get_parameter_names excluding LayerNorm from weight
decay, get_cosine_schedule_with_warmup, LabelSmoother with ignore_index -100, nested_concat padding predictions of
different lengths with -100, an IterableDataset sharded by get_worker_info, EvalPrediction metrics, and
clip_grad_norm_(foreach=True) in a compute_loss/training_step loop."""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, Sampler, get_worker_info

torch.manual_seed(0)
torch.set_printoptions(precision=4)

ALL_LAYERNORM_LAYERS = [nn.LayerNorm]


def get_length_grouped_indices(lengths, batch_size, mega_batch_mult=None, generator=None):
    if mega_batch_mult is None:
        mega_batch_mult = min(len(lengths) // (batch_size * 4), 50)
        if mega_batch_mult == 0:
            mega_batch_mult = 1
    indices = torch.randperm(len(lengths), generator=generator)
    megabatch_size = mega_batch_mult * batch_size
    megabatches = [indices[i: i + megabatch_size].tolist() for i in range(0, len(lengths), megabatch_size)]
    megabatches = [sorted(megabatch, key=lambda i: lengths[i], reverse=True) for megabatch in megabatches]
    return [i for megabatch in megabatches for i in megabatch]


class LengthGroupedSampler(Sampler):
    def __init__(self, batch_size, lengths, generator=None):
        self.batch_size, self.lengths, self.generator = batch_size, lengths, generator

    def __len__(self):
        return len(self.lengths)

    def __iter__(self):
        return iter(get_length_grouped_indices(self.lengths, self.batch_size, generator=self.generator))


@dataclass
class DataCollatorWithPadding:
    pad_token_id: int = 0
    pad_to_multiple_of: int = None

    def __call__(self, features):
        max_len = max(len(f["input_ids"]) for f in features)
        if self.pad_to_multiple_of is not None:
            max_len = (max_len + self.pad_to_multiple_of - 1) // self.pad_to_multiple_of * self.pad_to_multiple_of
        ids = torch.full((len(features), max_len), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(features), max_len), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"])
            mask[i, :n] = 1
        return {"input_ids": ids, "attention_mask": mask,
                "labels": torch.tensor([f["label"] for f in features], dtype=torch.long)}


def get_parameter_names(model, forbidden_layer_types):
    result = []
    for name, child in model.named_children():
        result += [f"{name}.{n}" for n in get_parameter_names(child, forbidden_layer_types)
                   if not isinstance(child, tuple(forbidden_layer_types))]
    result += list(model._parameters.keys())
    return result


def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, num_cycles=0.5):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, -1)


@dataclass
class LabelSmoother:
    epsilon: float = 0.1
    ignore_index: int = -100

    def __call__(self, logits, labels, shift_labels=False):
        if shift_labels:
            logits = logits[..., :-1, :].contiguous()
            labels = labels[..., 1:].contiguous()
        log_probs = -nn.functional.log_softmax(logits, dim=-1)
        if labels.dim() == log_probs.dim() - 1:
            labels = labels.unsqueeze(-1)
        padding_mask = labels.eq(self.ignore_index)
        labels = torch.clamp(labels, min=0)
        nll_loss = log_probs.gather(dim=-1, index=labels)
        smoothed_loss = log_probs.sum(dim=-1, keepdim=True, dtype=torch.float32)
        nll_loss.masked_fill_(padding_mask, 0.0)
        smoothed_loss.masked_fill_(padding_mask, 0.0)
        num_active_elements = padding_mask.numel() - padding_mask.long().sum()
        nll_loss = nll_loss.sum() / num_active_elements
        smoothed_loss = smoothed_loss.sum() / (num_active_elements * log_probs.shape[-1])
        return (1 - self.epsilon) * nll_loss + self.epsilon * smoothed_loss


def torch_pad_and_concatenate(tensor1, tensor2, padding_index=-100):
    if len(tensor1.shape) == 1 or tensor1.shape[1] == tensor2.shape[1]:
        return torch.cat((tensor1, tensor2), dim=0)
    new_shape = (tensor1.shape[0] + tensor2.shape[0], max(tensor1.shape[1], tensor2.shape[1])) + tensor1.shape[2:]
    result = tensor1.new_full(new_shape, padding_index)
    result[: tensor1.shape[0], : tensor1.shape[1]] = tensor1
    result[tensor1.shape[0]:, : tensor2.shape[1]] = tensor2
    return result


def nested_concat(tensors, new_tensors, padding_index=-100):
    if isinstance(tensors, (list, tuple)):
        return type(tensors)(nested_concat(t, n, padding_index) for t, n in zip(tensors, new_tensors))
    return torch_pad_and_concatenate(tensors, new_tensors, padding_index)


class ShardedStream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield {"input_ids": list(range(1, 2 + i % 5)), "label": i % 2}


class Classifier(nn.Module):
    def __init__(self, vocab=16, dim=12, num_labels=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.norm = nn.LayerNorm(dim)
        self.dense = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.norm(self.embed(input_ids))
        m = attention_mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        logits = self.out(torch.tanh(self.dense(pooled)))
        return {"logits": logits}


lengths = [3, 9, 1, 7, 4, 12, 6, 2, 8, 5, 11, 10]
gen = torch.Generator().manual_seed(1)
sampler = LengthGroupedSampler(2, lengths, generator=gen)
order = list(sampler)
print("length grouped", order, [lengths[i] for i in order])

features = [{"input_ids": list(range(1, 1 + n)), "label": n % 2} for n in (3, 5, 9)]
batch = DataCollatorWithPadding(pad_to_multiple_of=8)(features)
print("collated", batch["input_ids"].shape, batch["attention_mask"].sum(1).tolist(), batch["labels"].tolist())

model = Classifier()
decay_parameters = [n for n in get_parameter_names(model, ALL_LAYERNORM_LAYERS) if "bias" not in n]
print("decay params", decay_parameters)
groups = [{"params": [p for n, p in model.named_parameters() if n in decay_parameters], "weight_decay": 0.01},
          {"params": [p for n, p in model.named_parameters() if n not in decay_parameters], "weight_decay": 0.0}]
opt = torch.optim.AdamW(groups, lr=5e-2)
sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=2, num_training_steps=10)
print("schedule", [round(sched.lr_lambdas[0](s), 4) for s in range(0, 11, 2)])

smoother = LabelSmoother(epsilon=0.1)
logits = torch.randn(2, 4, 5)
labels = torch.tensor([[1, 2, -100, 0], [4, -100, -100, 3]])
print("label smoothed", round(smoother(logits, labels).item(), 4), "plain",
      round(F.cross_entropy(logits.view(-1, 5), labels.view(-1), label_smoothing=0.1).item(), 4))
print("shifted", round(smoother(logits, labels, shift_labels=True).item(), 4))

preds = nested_concat(torch.ones(2, 3, dtype=torch.long), torch.full((1, 5), 2))
print("nested_concat", preds.tolist())
pair = nested_concat((torch.zeros(1, 2), torch.ones(1)), (torch.ones(2, 4), torch.zeros(2)))
print("tuple concat", pair[0].tolist(), pair[1].tolist())

loader = DataLoader(ShardedStream(24), batch_size=6, collate_fn=DataCollatorWithPadding())
print("stream batches", len(list(loader)), "worker info in main", get_worker_info())
for step, batch in enumerate(loader):
    model.train()
    out = model(**batch)
    loss = F.cross_entropy(out["logits"], batch["labels"])
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
    opt.step()
    sched.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} norm {norm.item():.4f} lr {sched.get_last_lr()[0]:.4f}")

model.eval()
all_logits, all_labels = None, None
with torch.no_grad():
    for batch in DataLoader(ShardedStream(10), batch_size=4, collate_fn=DataCollatorWithPadding()):
        lg = model(**batch)["logits"]
        all_logits = lg if all_logits is None else nested_concat(all_logits, lg)
        all_labels = batch["labels"] if all_labels is None else nested_concat(all_labels, batch["labels"])
acc = (all_logits.argmax(-1) == all_labels).float().mean()
print("eval", tuple(all_logits.shape), "accuracy", round(acc.item(), 4), "labels", all_labels.tolist())

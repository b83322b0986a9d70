"""Data-pipeline mistakes, printed as type(e).__name__ and the whole message: default_collate of samples with
mismatched shapes, of mixed or unsupported types and of ragged sequences, DataLoader arguments that conflict
(sampler with shuffle, batch_sampler with batch_size), random_split lengths, TensorDataset sizes, Subset and
ConcatDataset indices, a Dataset without __getitem__, and what the fixed pipelines yield."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, RandomSampler, SequentialSampler,
                              Subset, TensorDataset, WeightedRandomSampler, default_collate, random_split)

torch.manual_seed(7)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


def shapes(batch):
    if isinstance(batch, torch.Tensor):
        return f"{tuple(batch.shape)}:{str(batch.dtype).removeprefix('torch.')}"
    if isinstance(batch, dict):
        return {k: shapes(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(shapes(b) for b in batch)
    return batch


class Sentences(Dataset):
    """Token ids of different lengths: the classic collate failure."""

    def __init__(self, lengths):
        self.items = [torch.arange(n) + 1 for n in lengths]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], torch.tensor(i % 2)


ragged = Sentences([3, 5, 2, 4])
show("loader_ragged", lambda: next(iter(DataLoader(ragged, batch_size=2))))


def pad_collate(batch):
    seqs, labels = zip(*batch)
    return pad_sequence(seqs, batch_first=True), torch.stack(labels), torch.tensor([len(s) for s in seqs])


show("loader_padded", lambda: [shapes(b) for b in DataLoader(ragged, batch_size=2, collate_fn=pad_collate)])
first = next(iter(DataLoader(ragged, batch_size=3, collate_fn=pad_collate)))
print("padded values", first[0].tolist(), first[2].tolist())

# --- default_collate directly ------------------------------------------------------------------------------
show("collate_shapes", lambda: default_collate([torch.zeros(2, 3), torch.zeros(3, 2)]))
show("collate_dims", lambda: default_collate([torch.zeros(3), torch.zeros(1, 3)]))
show("collate_dtypes_ok", lambda: shapes(default_collate([torch.zeros(2), torch.ones(2, dtype=torch.float64)])))
show("collate_numbers", lambda: default_collate([1, 2.5, 3]))
show("collate_ints_ok", lambda: default_collate([1, 2, 3]))
show("collate_bools_ok", lambda: default_collate([True, False]))
show("collate_strings_ok", lambda: default_collate(["a", "bc"]))
show("collate_none", lambda: default_collate([None, None]))
show("collate_object", lambda: default_collate([object(), object()]))
show("collate_set", lambda: default_collate([{1}, {2}]))
show("collate_mixed", lambda: default_collate([torch.zeros(2), [0.0, 0.0]]))
show("collate_dict_keys", lambda: default_collate([{"x": torch.zeros(2)}, {"y": torch.zeros(2)}]))
show("collate_dict_ok", lambda: shapes(default_collate([{"x": torch.zeros(2), "n": 1}, {"x": torch.ones(2), "n": 2}])))
show("collate_list_lengths", lambda: default_collate([[1, 2], [3]]))
show("collate_tuple_ok", lambda: shapes(default_collate([(torch.zeros(2), 1), (torch.ones(2), 0)])))
show("collate_nested_ragged", lambda: default_collate([{"ids": torch.zeros(3)}, {"ids": torch.zeros(4)}]))
show("collate_numpy_object",
     lambda: default_collate([__import__("numpy").array(["a"]), __import__("numpy").array(["b"])]))
show("collate_numpy_ok", lambda: shapes(default_collate([__import__("numpy").zeros(2)] * 3)))
show("collate_empty", lambda: default_collate([]))

# --- DataLoader arguments ------------------------------------------------------------------------------------
data = TensorDataset(torch.randn(10, 3), torch.randint(0, 2, (10,)))
show("shuffle_with_sampler", lambda: DataLoader(data, sampler=SequentialSampler(data), shuffle=True))
show("batch_sampler_with_batch_size",
     lambda: DataLoader(data, batch_sampler=BatchSampler(SequentialSampler(data), 4, False), batch_size=4))
show("batch_sampler_with_drop_last",
     lambda: DataLoader(data, batch_sampler=BatchSampler(SequentialSampler(data), 4, False), drop_last=True))
show("batch_size_none_drop_last", lambda: DataLoader(data, batch_size=None, drop_last=True))
show("negative_workers", lambda: DataLoader(data, num_workers=-1))
show("timeout_negative", lambda: DataLoader(data, timeout=-1))
show("prefetch_without_workers", lambda: DataLoader(data, prefetch_factor=2))
show("persistent_without_workers", lambda: DataLoader(data, persistent_workers=True))
show("batch_size_zero", lambda: DataLoader(data, batch_size=0))
show("batch_size_float", lambda: list(DataLoader(data, batch_size=2.5)))
show("batch_sampler_bad_size", lambda: BatchSampler(SequentialSampler(data), 0, False))
show("batch_sampler_bad_drop", lambda: BatchSampler(SequentialSampler(data), 2, "no"))
show("random_sampler_num_samples", lambda: RandomSampler(data, num_samples=0))
show("random_sampler_replacement", lambda: RandomSampler(data, replacement="yes"))
show("weighted_negative", lambda: list(WeightedRandomSampler([0.5, -1.0], 2)))
show("weighted_ok", lambda: list(WeightedRandomSampler([0.1, 0.9, 0.0], 5)))
show("len_batches", lambda: (len(DataLoader(data, batch_size=4)), len(DataLoader(data, batch_size=4, drop_last=True))))
show("batch_none_ok", lambda: shapes(next(iter(DataLoader(data, batch_size=None)))))
show("shuffled_order",
     lambda: [int(i) for i in torch.cat([y for _, y in DataLoader(data, batch_size=4, shuffle=True)])])

# --- datasets ------------------------------------------------------------------------------------------------
show("tensor_dataset_sizes", lambda: TensorDataset(torch.zeros(4, 2), torch.zeros(5)))
show("tensor_dataset_index", lambda: data[10])
show("tensor_dataset_neg_ok", lambda: shapes(data[-1]))
show("random_split_sum", lambda: random_split(data, [6, 5]))
show("random_split_fractions", lambda: [len(s) for s in random_split(data, [0.5, 0.3, 0.2])])
show("random_split_bad_fractions", lambda: random_split(data, [0.5, 0.6]))
show("random_split_negative", lambda: [len(s) for s in random_split(data, [12, -2])])
show("random_split_generator", lambda: [s.indices for s in random_split(data, [3, 7],
                                                                          generator=torch.Generator().manual_seed(1))])
show("subset_index", lambda: Subset(data, [0, 11])[1])
show("subset_ok", lambda: shapes(Subset(data, [2, 3])[0]))
show("concat_index", lambda: ConcatDataset([data, data])[20])
show("concat_negative", lambda: ConcatDataset([data, data])[-21])
show("concat_empty", lambda: ConcatDataset([]))
show("concat_len_ok", lambda: len(ConcatDataset([data, Subset(data, [1, 2])])))
show("dataset_add_ok", lambda: len(data + data))


class NoGetItem(Dataset):
    def __len__(self):
        return 3


show("no_getitem", lambda: NoGetItem()[0])
show("no_len_loader", lambda: len(DataLoader(Dataset())))


class BadItem(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise KeyError(f"missing sample {i}")
        return torch.full((2,), float(i))


show("item_error_main", lambda: list(DataLoader(BadItem(), batch_size=2)))
show("item_error_ok_part", lambda: [b.tolist() for b in DataLoader(Subset(BadItem(), [0, 1, 3]), batch_size=2)])

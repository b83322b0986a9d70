"""The corners of batching that bite in practice: default_collate's dtype choice for mixed int/float lists,
bools, 0-d and float16/uint16/complex numpy values, mixed tensor dtypes, container subclasses (deque, dict and list
subclasses), learnable per-sample tensors (an auto-decoder's latent codes collated with their graph), Tensor
subclasses, plain Python containers, numpy arrays, tensors and strings used as datasets, random_split's and
WeightedRandomSampler's errors and warnings, and an exception inside a worker re-raised with its name."""

import collections
import warnings

import numpy as np
import torch
from torch.utils.data import (DataLoader, Dataset, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                              default_collate, random_split)

torch.set_printoptions(precision=4)


def show(label, fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn()
        print(label, "ok", out, [str(w.message)[:90] for w in caught])
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Record(dict):
    pass


class Row(list):
    pass


class Tagged(torch.Tensor):
    pass


show("int_then_float", lambda: default_collate([1, 2.5]))
show("float_then_int", lambda: default_collate([1.5, 2]))
show("bools", lambda: default_collate([True, False]))
show("np_0d", lambda: default_collate([np.array(1.5), np.array(2.5)]))
show("np_f16", lambda: default_collate([np.float16(1.5), np.float16(2.5)]).dtype)
show("np_u16", lambda: default_collate([np.zeros(2, np.uint16), np.ones(2, np.uint16)]).dtype)
show("np_complex", lambda: default_collate([np.complex64(1 + 2j), np.complex64(2)]))
show("np_mixed_arrays", lambda: default_collate([np.zeros(2, np.int32), np.ones(2, np.float32)]))
show("np_flipped", lambda: default_collate([np.flip(np.arange(3)), np.arange(3)]))
show("np_flipped_copy", lambda: default_collate([np.flip(np.arange(3)).copy(), np.arange(3)]))
show("np_big_endian", lambda: default_collate([np.arange(2, dtype=">i4")] * 2))
show("np_big_endian_native", lambda: default_collate([np.arange(2, dtype=">i4").astype("<i4")] * 2))
show("np_longdouble", lambda: default_collate([np.zeros(2, np.longdouble)] * 2))
show("tensor_big_endian", lambda: torch.tensor(np.arange(2, dtype=">f8")))
show("mixed_tensor_dtypes", lambda: default_collate([torch.ones(2, dtype=torch.int32), torch.ones(2)]).dtype)
show("half_and_float", lambda: default_collate([torch.ones(2, dtype=torch.float16), torch.ones(2)]).dtype)
show("deque", lambda: default_collate([collections.deque([1, 2]), collections.deque([3, 4])]))
show("dict_subclass", lambda: type(default_collate([Record(a=1), Record(a=2)])).__name__)
show("list_subclass", lambda: default_collate([Row([1, 2]), Row([3, 4])]))
show("nested_strings", lambda: default_collate([("a", ("b", 1)), ("c", ("d", 2))]))
show("subclass", lambda: type(default_collate([torch.ones(2).as_subclass(Tagged)] * 2)).__name__)
show("empty_batch", lambda: default_collate([]))

torch.manual_seed(0)
codes = torch.nn.Parameter(torch.randn(6, 3) * 0.1)
decoder = torch.nn.Linear(3, 1)
targets = torch.linspace(-1, 1, 6)


class AutoDecoderData(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return codes[i], targets[i]


opt = torch.optim.SGD([codes, *decoder.parameters()], lr=0.5)
for epoch in range(3):
    total = 0.0
    for z, t in DataLoader(AutoDecoderData(), batch_size=3):
        loss = ((decoder(z).squeeze(1) - t) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print("autodecoder", epoch, round(total, 4), z.grad_fn is not None)
print("codes", codes.detach())

show("loader_dict", lambda: list(DataLoader({0: "a", 1: "b", 2: "c"}, batch_size=2)))
show("loader_numpy", lambda: list(DataLoader(np.arange(5), batch_size=2)))
show("loader_tensor", lambda: list(DataLoader(torch.arange(5.0), batch_size=2)))
show("loader_str", lambda: list(DataLoader("abc", batch_size=2)))
show("loader_pairs", lambda: list(DataLoader(list(zip("xyz", [1.0, 2.0, 3.0])), batch_size=3)))
show("loader_empty", lambda: list(DataLoader([], batch_size=2)))
show("loader_empty_shuffle", lambda: list(DataLoader([], batch_size=2, shuffle=True)))

show("split_sum", lambda: random_split(range(10), [3, 3]))
show("split_fractions_sum", lambda: random_split(range(10), [0.5, 0.6]))
show("split_zero_parts", lambda: [len(p) for p in random_split(range(3), [0.9, 0.1, 0.0],
                                                               generator=torch.Generator().manual_seed(0))])
show("weights_negative", lambda: list(WeightedRandomSampler([1.0, -1.0], 2)))
show("weights_all_zero", lambda: list(WeightedRandomSampler([0.0, 0.0], 2)))
show("weights_inf", lambda: list(WeightedRandomSampler([1.0, float("inf")], 2)))
show("weights_too_many", lambda: list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False)))
show("weights_2d", lambda: WeightedRandomSampler([[1.0], [1.0]], 2))
show("weights_float_n", lambda: WeightedRandomSampler([1.0], 2.0))
show("random_empty", lambda: list(RandomSampler([])))
show("subset_tensor_indices", lambda: list(SubsetRandomSampler(torch.tensor([5, 6, 7]),
                                                               generator=torch.Generator().manual_seed(0))))


class Flaky(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"sample {i} missing")
        return i


show("raise_in_process", lambda: list(DataLoader(Flaky(), batch_size=2)))
show("raise_in_worker", lambda: list(DataLoader(Flaky(), batch_size=2, num_workers=1)))

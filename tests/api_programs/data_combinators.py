"""Dataset combinators as multi-source training code stacks them: TensorDataset with several tensors and its
errors, Subset of Subset with tensor and range indices, Subset.__getitems__ batching, ConcatDataset of map-style
datasets with negative and out-of-range indices and bisect-based source lookup, `+` between datasets,
StackDataset of tuples and of keyword datasets, ChainDataset of iterables, a multi-source loader mixing them, and
the reprs and errors users hit."""

import torch
from torch.utils.data import (ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset, StackDataset,
                              Subset, TensorDataset)

torch.set_printoptions(precision=4)


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Named(Dataset):
    def __init__(self, name, n):
        self.name, self.n = name, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n or i < -self.n:
            raise IndexError(f"{self.name} index {i} out of range")
        return f"{self.name}{i % self.n}"


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        yield from self.items


torch.manual_seed(0)
x = torch.randn(8, 3)
y = torch.arange(8) % 3
w = torch.rand(8)
td = TensorDataset(x, y, w)
print("tensor_ds", len(td), len(td[5]), td[5][0], td[5][1].item(), round(td[5][2].item(), 4))
print("tensor_ds_slice", [t.shape for t in td[2:5]])
print("tensor_ds_list_idx", td[[0, 7]][1].tolist(), td[torch.tensor([1, 2])][0].shape)

sub = Subset(td, [7, 5, 3, 1])
subsub = Subset(sub, torch.tensor([3, 0]))
print("subset", len(sub), sub[0][1].item(), len(subsub), [s[1].item() for s in subsub], subsub.indices.tolist())
print("subset_range", [Subset(Named("r", 10), range(2, 9, 3))[i] for i in range(3)])
print("subset_getitems", Subset(Named("g", 6), [5, 1, 2]).__getitems__([0, 2]))
loader = DataLoader(Subset(td, [0, 2, 4, 6]), batch_size=3)
print("subset_loader", [(b[0].shape, b[1].tolist()) for b in loader])

a, b, c = Named("a", 3), Named("b", 0), Named("c", 4)
cat = ConcatDataset([a, b, c])
print("concat", len(cat), cat.cumulative_sizes, [cat[i] for i in range(len(cat))])
print("concat_negative", cat[-1], cat[-4], cat[-7])
show_error("concat_too_negative", lambda: cat[-8])
show_error("concat_past_end", lambda: cat[7])
print("concat_datasets", [d.name for d in cat.datasets])
plus = a + c + Named("d", 2)
print("plus", type(plus).__name__, len(plus), plus.cumulative_sizes, plus[8])
print("concat_loader", list(DataLoader(cat, batch_size=3)))
print("concat_shuffle", list(DataLoader(cat, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(2))))

st = StackDataset(td, Named("n", 8))
print("stack_tuple", len(st), st[3][1], st[3][0][1].item())
sk = StackDataset(feat=x, label=y, name=Named("k", 8))
print("stack_kwargs", sorted(sk[2].keys()), sk[2]["label"].item(), sk[2]["name"])
batch = next(iter(DataLoader(sk, batch_size=3)))
print("stack_loader", sorted(batch), batch["feat"].shape, batch["label"].tolist(), batch["name"])
print("stack_getitems", [e["name"] for e in sk.__getitems__([0, 4])])

chain = ChainDataset([Stream([1, 2]), Stream([]), Stream(range(3, 6))])
print("chain", list(chain), [t.tolist() for t in DataLoader(chain, batch_size=2)])

show_error("tensor_size_mismatch", lambda: TensorDataset(torch.zeros(3), torch.zeros(4)))
show_error("stack_mixed", lambda: StackDataset(td, name=Named("m", 8)))
show_error("stack_len_mismatch", lambda: StackDataset(td, Named("m", 5)))
show_error("stack_empty", lambda: StackDataset())
show_error("concat_empty", lambda: ConcatDataset([]))
show_error("concat_iterable", lambda: ConcatDataset([a, Stream([1])]))
show_error("chain_map_style", lambda: list(ChainDataset([a])))
show_error("subset_out_of_range", lambda: Subset(td, [0, 9])[1])
show_error("tensor_index", lambda: td[8])
print("isinstance", isinstance(td, Dataset), isinstance(chain, IterableDataset), isinstance(cat, Dataset),
      isinstance(sub, Dataset), isinstance(st, Dataset))

"""Tensor-type habits of 0.3/0.4 code on PyTorch 2: legacy constructors from numpy and sizes, `.type()` casts,
typed storages, `set_default_tensor_type`, uint8 masks and sums, one-hot through `scatter_`, integer division,
`torch.range`, `torch.sparse.FloatTensor`, `resize_` of tensors that need grad, and the warnings and errors."""

import warnings

import numpy as np
import torch
from torch.autograd import Variable


def show(w):
    for item in w:
        print("  warn", item.category.__name__, str(item.message).splitlines()[0].split(" (Triggered internally")[0])


def attempt(name, fn):
    """Run one legacy idiom, printing its value (or its error) and the warnings it raised."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            v = fn()
            if isinstance(v, torch.Tensor):
                v = (v.dtype, tuple(v.shape), np.round(v.double().numpy(), 4).tolist())
            print(name, v)
        except Exception as e:
            print(name, "error", type(e).__name__, str(e).splitlines()[0][:120])
    show(w)


x = torch.arange(6.0).view(2, 3)
attempt("Tensor(np int)", lambda: torch.Tensor(np.arange(3)))
attempt("FloatTensor(np)", lambda: torch.FloatTensor(np.linspace(0, 1, 3)))
attempt("LongTensor(np int32)", lambda: torch.LongTensor(np.arange(3, dtype=np.int32)))
attempt("FloatTensor(Size)", lambda: torch.FloatTensor(torch.Size([2, 2])).zero_())
attempt("LongTensor(floats)", lambda: torch.LongTensor([1.7, -2.2]))
attempt("DoubleTensor nested", lambda: torch.DoubleTensor([[1, 2], [3, 4]]))
attempt("type(dtype)", lambda: x.type(torch.int32))
attempt("type(str)", lambda: x.type("torch.ShortTensor"))
attempt("type(bad)", lambda: x.type("torch.FooTensor"))
attempt("type(non_blocking)", lambda: x.type(torch.DoubleTensor, non_blocking=True))
attempt("type()", lambda: (x.type(), x.long().type(), x.half().type(), x.byte().type(), torch.typename(x)))
attempt("is_tensor", lambda: (torch.is_tensor(x), torch.is_tensor(x.numpy()), torch.is_floating_point(x)))

# Typed storages (warned once a process).
attempt("storage", lambda: (x.storage().size(), x.storage().tolist(), x.storage().dtype, x.storage_type().__name__))
attempt("FloatStorage", lambda: (torch.FloatStorage(3).size(), torch.LongStorage([4, 5]).tolist()))
attempt("is_storage", lambda: (torch.is_storage(x.storage()), torch.is_storage(x.untyped_storage()),
                               torch.is_storage(x)))
attempt("storage shares", lambda: (x.storage().data_ptr() == x.data_ptr(), x[1:].storage_offset(),
                                   x.untyped_storage().nbytes()))

# The default tensor type.
attempt("set_default_tensor_type", lambda: (torch.set_default_tensor_type(torch.DoubleTensor),
                                            torch.tensor([1.5]).dtype, torch.Tensor(2).dtype,
                                            torch.get_default_dtype(), torch.zeros(1).type()))
attempt("set again", lambda: (torch.set_default_tensor_type("torch.FloatTensor"), torch.get_default_dtype()))

# Masks, sums and one-hots of the uint8 era.
mask = torch.ByteTensor([0, 1, 1])
attempt("nonzero", lambda: torch.nonzero(mask))
attempt("nonzero as_tuple", lambda: mask.nonzero(as_tuple=True)[0])
attempt("uint8 sum", lambda: torch.ByteTensor([200, 100]).sum())
attempt("uint8 add wraps", lambda: torch.ByteTensor([200]) + torch.ByteTensor([100]))
attempt("mask index", lambda: torch.arange(3.0)[mask])
attempt("mask.any", lambda: (mask.any().item(), mask.all().item(), mask.any().dtype))
labels = torch.LongTensor([1, 0, 2])
attempt("one-hot", lambda: torch.FloatTensor(3, 3).zero_().scatter_(1, labels.view(-1, 1), 1))
attempt("index_fill_", lambda: torch.zeros(3).index_fill_(0, torch.LongTensor([1]), 1.0))
attempt("uniform_ bad", lambda: torch.FloatTensor(2).uniform_(1, 0))

# Integer division changed meaning in 1.5-1.6.
attempt("long / 2", lambda: torch.LongTensor([5, -5]) / 2)
attempt("long // 2", lambda: torch.LongTensor([5, -5]) // 2)
attempt("div floor", lambda: torch.div(torch.LongTensor([5, -5]), 2, rounding_mode="floor"))
attempt("div trunc", lambda: torch.div(torch.LongTensor([5, -5]), 2, rounding_mode="trunc"))
attempt("div_ in place", lambda: torch.LongTensor([5]).div_(2))
attempt("torch.range", lambda: torch.range(0, 3))
attempt("torch.range step", lambda: torch.range(1, 2, 0.5))
attempt("norm p dim", lambda: torch.norm(x, 2, 1))
attempt("max(0)", lambda: tuple(t.tolist() for t in x.max(0)))
idx, vals = torch.LongTensor([[0, 2]]), torch.FloatTensor([1.0, 2.0])
attempt("sparse.FloatTensor", lambda: torch.sparse.FloatTensor(idx, vals, torch.Size([3])).to_dense())

# resize_ of tensors that need grad; old Variable plumbing.
attempt("resize_ leaf", lambda: torch.ones(2, requires_grad=True).resize_(3))
attempt("resize_ nonleaf", lambda: (torch.ones(2, requires_grad=True) * 2).resize_(3))
attempt("resize_ data", lambda: Variable(torch.ones(2), requires_grad=True).data.resize_(4).shape)
attempt("resize_as_", lambda: torch.ones(2).resize_as_(torch.ones(2, 2)).shape)
attempt("Variable meta", lambda: (type(Variable).__name__, isinstance(x, Variable), issubclass(type(x), torch.Tensor)))
attempt("numpy of grad", lambda: torch.ones(2, requires_grad=True).numpy())
attempt("detach numpy", lambda: torch.ones(2, requires_grad=True).detach().numpy().tolist())
attempt("data numpy aliases", lambda: (lambda n: (n.__setitem__((0, 0), 9.0), x[0, 0].item()))(x.data.numpy()))
attempt("removed gesv", lambda: torch.gesv)

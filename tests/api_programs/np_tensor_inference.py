"""torch.tensor over the data a preprocessing script accumulates: rows parsed from CSV text (ints, floats,
bools mixed), lists of numpy scalars from np.mean/np.argmax in a loop, lists of per-sample numpy arrays
(PyTorch's slow-path warning), variable-length sequences (the ragged errors), 0-d tensors gathered in a list,
legacy constructors on numpy data, dtype= overrides that truncate or wrap, and what .tolist()/.item() give back
for each dtype."""

import warnings

import numpy as np
import torch

torch.set_printoptions(precision=4)


def build(name, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            t = fn()
            print(f"{name:<26} {str(t.dtype):<15} {tuple(t.shape)} {t.tolist()}")
        except Exception as e:
            print(f"{name:<26} {type(e).__name__}: {str(e).splitlines()[0][:100]}")
    for w in ws:
        print(f"{'':<26} warns: {str(w.message).split('. ')[0]}")


print("-- rows parsed from text")
text = "3,1.5,true\n4,2,false\n5,-0.25,true"
rows = []
for line in text.splitlines():
    a, b, c = line.split(",")
    rows.append([int(a), float(b), c == "true"])
build("mixed row", lambda: torch.tensor(rows[0]))
build("all rows", lambda: torch.tensor(rows))
build("int+bool columns", lambda: torch.tensor([[r[0], r[2]] for r in rows]))
build("bool column", lambda: torch.tensor([r[2] for r in rows]))
build("tuple rows", lambda: torch.tensor(tuple(tuple(r[:2]) for r in rows)))
build("with complex", lambda: torch.tensor([1, 2.5, 1j]))
build("big int and float", lambda: torch.tensor([2**40, 0.5]))
build("nan and int", lambda: torch.tensor([float("nan"), 3]))
build("empty rows", lambda: torch.tensor([[], []]))

print("-- numpy scalars collected in a loop")
rng = np.random.default_rng(11)
batches = [rng.normal(size=(4, 3)).astype(np.float32) for _ in range(3)]
means = [b.mean() for b in batches]
argmaxes = [b.sum(0).argmax() for b in batches]
flags = [b.max() > 1.0 for b in batches]
print("element types", type(means[0]).__name__, type(argmaxes[0]).__name__, type(flags[0]).__name__)
build("np.float32 list", lambda: torch.tensor(means).round(decimals=4))
build("np.int64 list", lambda: torch.tensor(argmaxes))
build("np.bool_ list", lambda: torch.tensor(flags))
build("np.float32 + int", lambda: torch.tensor([means[0], 2]).round(decimals=4))
build("np.float16 + float", lambda: torch.tensor([np.float16(1.5), 2.5]))
build("np.int8 + np.int16", lambda: torch.tensor([np.int8(1), np.int16(2)]))
build("np.int32 + float", lambda: torch.tensor([np.int32(1), 2.5]))
build("np.float32 + np.float64", lambda: torch.tensor([np.float32(1), np.float64(2)]))
build("np.uint8 list", lambda: torch.tensor([np.uint8(1), np.uint8(200)]))
build("np.uint32 + int", lambda: torch.tensor([np.uint32(1), 5]))
build("np.bool_ + float", lambda: torch.tensor([np.bool_(True), 1.5]))
build("np.bool_ + int", lambda: torch.tensor([np.bool_(True), 1]))
build("np.bool_ as int64", lambda: torch.tensor(np.bool_(False), dtype=torch.int64))
build("np.bool_ list as float", lambda: torch.tensor(flags, dtype=torch.float32))
build("np.complex64 + float", lambda: torch.tensor([np.complex64(1j), 1.5]))
build("list(np.arange)", lambda: torch.tensor(list(np.arange(3))))
build("list(np.linspace)", lambda: torch.tensor(list(np.linspace(0, 1, 3))))
build("np scalar alone", lambda: torch.tensor(np.float32(2.5)))
build("np.int16 alone", lambda: torch.tensor(np.int16(7)))
build("as_tensor np scalars", lambda: torch.as_tensor([np.float32(1.5), np.float32(2)]))

print("-- lists of arrays and of tensors")
build("list of f32 arrays", lambda: torch.tensor(batches[:2]).sum(dim=(1, 2)).round(decimals=4))
build("np.stack first", lambda: torch.tensor(np.stack(batches[:2])).shape and torch.tensor(np.stack(batches[:2]))[0, 0])
build("f32 and f64 arrays", lambda: torch.tensor([np.ones(2, np.float32), np.zeros(2)]))
build("array and list", lambda: torch.tensor([np.ones(2, np.int32), [1.5, 2]]))
build("as_tensor arrays", lambda: torch.as_tensor([np.ones(2), np.zeros(2)]))
build("0-d arrays", lambda: torch.tensor([np.array(1.5), np.array(2.5)]))
losses = [torch.tensor(0.5), torch.tensor(0.25), torch.tensor(0.125)]
build("0-d tensors", lambda: torch.tensor(losses))
build("stack 0-d tensors", lambda: torch.stack(losses))
build("int tensor + float", lambda: torch.tensor([torch.tensor(1), 2.5]))
build("f16 tensor + int", lambda: torch.tensor([torch.tensor(1.5, dtype=torch.float16), 2]))
build("1-d tensors", lambda: torch.tensor([torch.ones(2), torch.zeros(2)]))
build("tensor of tensor", lambda: torch.tensor(torch.arange(3)))

print("-- variable-length sequences")
seqs = [rng.integers(0, 5, size=n) for n in (3, 2, 3)]
build("ragged lists", lambda: torch.tensor([s.tolist() for s in seqs]))
build("ragged arrays", lambda: torch.tensor(seqs))
build("ragged 2-d arrays", lambda: torch.tensor([np.ones((2, 2)), np.ones((2, 3))]))
build("ragged np scalars", lambda: torch.tensor([[np.float32(1), 2], [3]]))
build("string array", lambda: torch.tensor([np.array(["a", "b"])]))
build("object array", lambda: torch.tensor(np.array([1, 2], dtype=object)))
build("None inside", lambda: torch.tensor([1, None]))
build("padded instead", lambda: torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs],
                                                                  batch_first=True))

print("-- dtype= overrides and legacy constructors")
build("float -> int32", lambda: torch.tensor([np.float64(1.7), -2.7], dtype=torch.int32))
build("np scalar -> int64", lambda: torch.tensor(np.float64(2.9), dtype=torch.int64))
build("-1 -> uint8", lambda: torch.tensor([-1], dtype=torch.uint8))
build("300 -> uint8", lambda: torch.tensor([300], dtype=torch.uint8))
build("inf -> int64", lambda: torch.tensor([float("inf")], dtype=torch.int64))
build("floats -> bool", lambda: torch.tensor([1.5, 0.0, -0.0], dtype=torch.bool))
build("array -> float16", lambda: torch.tensor(np.arange(3), dtype=torch.float16))
build("torch.Tensor(array)", lambda: torch.Tensor(np.arange(3)))
build("FloatTensor(array)", lambda: torch.FloatTensor(np.arange(3.0)))
build("LongTensor(np ints)", lambda: torch.LongTensor([np.int64(3), np.int64(4)]))
build("Tensor(np.float64s)", lambda: torch.Tensor([np.float64(1.25)]))

print("-- what comes back")
for t in [torch.tensor([0.1], dtype=torch.float16), torch.tensor([0.1], dtype=torch.bfloat16), torch.tensor([1 / 3]),
          torch.tensor([1 / 3], dtype=torch.float64), torch.tensor([200], dtype=torch.uint8), torch.tensor([True]),
          torch.tensor([1 + 1j])]:
    v = t.item()
    print(f"{str(t.dtype):<15} item {type(v).__name__:<8} {v!r:<22} tolist {t.tolist()!r}")
arr = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32).numpy()
print("numpy row types", type(arr[0]).__name__, type(arr[0, 0]).__name__, arr.tolist())

"""What DCP flattens and how: nested dicts, lists of tensors, tuples and plain lists kept whole, scalars and strings,
every dtype, 0-d, empty and non-contiguous tensors; the keys, sizes and dtypes .metadata lists, and the round trip."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import BytesStorageMetadata, FileSystemReader, TensorStorageMetadata

warnings.filterwarnings("ignore", message="torch.distributed is disabled")
torch.manual_seed(0)

base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
state = {
    "f32": torch.randn(2, 3),
    "f64": torch.randn(3, dtype=torch.float64),
    "f16": torch.tensor([1.5, -2.25], dtype=torch.float16),
    "bf16": torch.tensor([0.5, 3.0], dtype=torch.bfloat16),
    "i32": torch.tensor([[1, 2], [3, 4]], dtype=torch.int32),
    "u8": torch.tensor([0, 255], dtype=torch.uint8),
    "mask": torch.tensor([True, False, True]),
    "c64": torch.tensor([1 + 2j, -1j], dtype=torch.complex64),
    "scalar": torch.tensor(7.25),
    "empty": torch.zeros(0, 3),
    "transposed": base.t(),
    "strided": base[:, ::2],
    "cfg": {"lr": 3e-4, "betas": (0.9, 0.95), "layers": [64, 64, 10], "name": "mlp", "flag": True, "none": None},
    "buffers": [torch.ones(2), torch.full((1,), 2.0)],
    "mixed": [{"w": torch.eye(2)}, 5],
    "pair": (torch.zeros(1), torch.ones(1)),
    "deep": {"a": {"b": {"c": torch.tensor([1, 2, 3])}}},
    "empty_dict": {},
    3: "int key",
}

with tempfile.TemporaryDirectory() as root:
    ck = os.path.join(root, "ck")
    dcp.save(state, checkpoint_id=ck)
    md = FileSystemReader(ck).read_metadata()
    for key, entry in md.state_dict_metadata.items():
        if isinstance(entry, TensorStorageMetadata):
            print(key, list(entry.size), entry.properties.dtype, entry.properties.requires_grad)
        else:
            print(key, isinstance(entry, BytesStorageMetadata), entry)
    print({k: v for k, v in md.planner_data.items() if len(v) > 1})

    target = {
        "f32": torch.zeros(2, 3), "f64": torch.zeros(3, dtype=torch.float64),
        "f16": torch.zeros(2, dtype=torch.float16), "bf16": torch.zeros(2, dtype=torch.bfloat16),
        "i32": torch.zeros(2, 2, dtype=torch.int32), "u8": torch.zeros(2, dtype=torch.uint8),
        "mask": torch.zeros(3, dtype=torch.bool), "c64": torch.zeros(2, dtype=torch.complex64),
        "scalar": torch.tensor(0.0), "empty": torch.ones(0, 3),
        "transposed": torch.zeros(4, 3), "strided": torch.zeros(6).view(2, 3).t(),
        "cfg": {"lr": 0.0, "betas": None, "layers": [], "name": "", "flag": False, "none": 1},
        "buffers": [torch.zeros(2), torch.zeros(1)], "mixed": [{"w": torch.zeros(2, 2)}, 0],
        "pair": None, "deep": {"a": {"b": {"c": torch.zeros(3, dtype=torch.int64)}}}, "3": None,
    }
    strided = target["strided"]
    dcp.load(target, checkpoint_id=ck)
    for key in ["f32", "f64", "f16", "bf16", "scalar"]:
        print(key, target[key].dtype, target[key].float().round(decimals=4).tolist())
    print(target["i32"].tolist(), target["u8"].tolist(), target["mask"].tolist(), target["c64"].tolist())
    print(target["empty"].shape, target["transposed"].tolist())
    print(target["strided"] is strided, strided.is_contiguous(), strided.tolist())
    print(target["cfg"])
    print([b.tolist() for b in target["buffers"]], target["mixed"][0]["w"].tolist(), target["mixed"][1])
    print([p.tolist() for p in target["pair"]], type(target["pair"]).__name__)
    print(target["deep"]["a"]["b"]["c"].tolist(), target["3"])

"""Save a model's state dict with torch.distributed.checkpoint in one process, inspect the .metadata, and load it
back in place into a freshly initialised model."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemReader, FileSystemWriter

nn = torch.nn
F = torch.nn.functional
warnings.filterwarnings("ignore", message="torch.distributed is disabled")

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.head(x.flatten(1))


model = Net()
x = torch.randn(5, 1, 8, 8)
model.train()
for _ in range(2):
    model(x)  # moves the BatchNorm running statistics
model.eval()
want = model(x)
print("out", want.shape, round(want.sum().item(), 4))

with tempfile.TemporaryDirectory() as root:
    path = os.path.join(root, "ckpt")
    md = dcp.save(model.state_dict(), checkpoint_id=path)
    print(type(md).__name__, sorted(os.listdir(path)))
    print(list(md.state_dict_metadata))

    meta = FileSystemReader(path).read_metadata()
    for key, entry in meta.state_dict_metadata.items():
        if type(entry).__name__ == "TensorStorageMetadata":
            print(key, tuple(entry.size), entry.properties.dtype, len(entry.chunks), entry.chunks[0].sizes)
        else:
            print(key, entry)
    print(meta.planner_data["bn.running_mean"], meta.version)
    print(sum(e.size.numel() for e in meta.state_dict_metadata.values() if hasattr(e, "size")))

    torch.manual_seed(1)
    fresh = Net().eval()
    print("before load", torch.allclose(fresh(x), want))
    sd = fresh.state_dict()
    ptr = sd["conv.weight"].data_ptr()
    dcp.load(sd, checkpoint_id=path)
    print("in place", sd["conv.weight"].data_ptr() == ptr, fresh.conv.weight.data_ptr() == ptr)
    print("after load", torch.allclose(fresh(x), want), fresh.bn.num_batches_tracked.item())
    print(fresh.bn.running_mean.round(decimals=4).tolist())

    # an explicit writer and reader, a second checkpoint beside the first
    w = FileSystemWriter(os.path.join(root, "second"), sync_files=False)
    print(type(w).__name__, w.sync_files, w.overwrite, w.thread_count, w.single_file_per_rank)
    dcp.save({"model": model.state_dict(), "epoch": 3}, storage_writer=w)
    other = {"model": Net().state_dict(), "epoch": 0}
    dcp.load(other, storage_reader=FileSystemReader(os.path.join(root, "second")))
    print("epoch", other["epoch"], torch.equal(other["model"]["head.bias"], model.head.bias.detach()))
    print(sorted(FileSystemReader(os.path.join(root, "second")).read_metadata().state_dict_metadata)[:3])
    # a partial state dict loads just those keys
    part = {"head.weight": torch.zeros(3, 64)}
    dcp.load(part, checkpoint_id=path)
    print("partial", round(part["head.weight"].abs().sum().item(), 4))

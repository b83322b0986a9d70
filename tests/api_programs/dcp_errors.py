"""What DCP refuses, with PyTorch's words: a key the checkpoint lacks, a tensor of another shape, a tensor saved where
a plain value is expected, no checkpoint at all, no checkpoint_id, overwrite=False; and what it quietly accepts."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import CheckpointException, FileSystemWriter

nn = torch.nn
warnings.filterwarnings("ignore", message="torch.distributed is disabled")


def show(fn):
    try:
        fn()
        print("ok")
    except CheckpointException as e:
        lines = str(e).splitlines()
        (rank, (inner, _)), = e.failures.items()
        print(type(e).__name__, isinstance(e, Exception), lines[0], "|", rank, type(inner).__name__, inner)
    except Exception as e:
        print(type(e).__name__, e)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
with tempfile.TemporaryDirectory() as root:
    ck = os.path.join(root, "ck")
    dcp.save({"model": model.state_dict(), "step": 10, "tag": "best"}, checkpoint_id=ck)

    show(lambda: dcp.load({"model": nn.Linear(4, 3).state_dict()}, checkpoint_id=ck))
    show(lambda: dcp.load({"model": {"0.weight": torch.zeros(3, 5)}}, checkpoint_id=ck))
    show(lambda: dcp.load({"model": {"0.bias": torch.zeros(1, 3)}}, checkpoint_id=ck))
    show(lambda: dcp.load({"model": {"0.weight": 0}}, checkpoint_id=ck))
    show(lambda: dcp.load({"step": torch.zeros(1)}, checkpoint_id=ck))   # replaced by the saved int
    show(lambda: dcp.load({"model": {"0.weight": torch.zeros(3, 4, dtype=torch.float64)}}, checkpoint_id=ck))
    show(lambda: dcp.load({}, checkpoint_id=ck))
    show(lambda: dcp.load({"x": torch.zeros(1)}))
    show(lambda: dcp.save({"x": torch.zeros(1)}))

    try:
        dcp.load({"step": 0}, checkpoint_id=os.path.join(root, "missing"))
    except CheckpointException as e:
        (inner, _), = e.failures.values()
        print(type(inner).__name__, str(inner).split(";")[0])

    try:
        dcp.load({"model": {"2.bias": torch.zeros(7)}}, checkpoint_id=ck)
    except Exception:
        print("never reached: CheckpointException is a BaseException")
    except BaseException as e:
        print("caught as BaseException:", str(e).splitlines()[-1])

    w = FileSystemWriter(ck, overwrite=False)
    show(lambda: dcp.save({"x": torch.ones(1)}, storage_writer=w))
    show(lambda: dcp.save({"x": torch.ones(1)}, storage_writer=FileSystemWriter(os.path.join(root, "new"),
                                                                                 overwrite=False)))
    print(sorted(os.listdir(root)))

    sd = {"step": 0, "tag": None}
    dcp.load(sd, checkpoint_id=ck)
    print(sd)
    t = {"model": {"0.weight": torch.zeros(3, 4, dtype=torch.float64)}}
    dcp.load(t, checkpoint_id=ck)
    print(t["model"]["0.weight"].dtype, torch.allclose(t["model"]["0.weight"].float(), model[0].weight))

"""Per-worker randomness as augmentation pipelines depend on it: what torch, random and numpy draw inside two
workers for a seeded loader generator (PyTorch seeds all three from base_seed + worker id), the same loader
re-iterated (fresh seeds per epoch) versus persistent_workers (the streams continue), the classic
worker_init_fn idiom that reseeds numpy from torch.initial_seed(), the seed_worker recipe of the reproducibility
notes, and in-process loading drawing from the main process's streams."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Augment(Dataset):
    """Item i with the random draws an augmentation would make for it."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        wid = -1 if info is None else info.id
        return {
            "i": i,
            "worker": wid,
            "torch": round(torch.rand(1).item(), 4),
            "py": round(random.random(), 4),
            "np": round(float(np.random.rand()), 4),
        }


def show(label, loader):
    rows = []
    for b in loader:
        rows += [(int(b["i"][k]), int(b["worker"][k]), round(float(b["torch"][k]), 4), round(float(b["py"][k]), 4),
                  round(float(b["np"][k]), 4)) for k in range(len(b["i"]))]
    print(label, rows)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def reseed_numpy(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)


torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
show("in_process", DataLoader(Augment(), batch_size=2))
print("main_after", round(torch.rand(1).item(), 4), round(random.random(), 4), round(float(np.random.rand()), 4))

g = torch.Generator().manual_seed(0)
loader = DataLoader(Augment(), batch_size=2, num_workers=2, generator=g)
show("epoch0", loader)
show("epoch1", loader)
g.manual_seed(0)
show("reseeded", loader)

pl = DataLoader(Augment(), batch_size=2, num_workers=2, persistent_workers=True,
                generator=torch.Generator().manual_seed(1))
show("persistent0", pl)
show("persistent1", pl)

show("seed_worker", DataLoader(Augment(), batch_size=2, num_workers=2, worker_init_fn=seed_worker,
                                generator=torch.Generator().manual_seed(2)))
show("reseed_numpy", DataLoader(Augment(), batch_size=2, num_workers=2, worker_init_fn=reseed_numpy,
                                 generator=torch.Generator().manual_seed(2)))

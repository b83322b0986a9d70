"""Per-worker randomness as augmentation pipelines rely on it: each worker's seed is the loader's base seed plus its
id and is torch.initial_seed() inside the worker, Python's and numpy's generators differ between workers (numpy
through the usual worker_init_fn idiom), a seeded Generator makes whole runs repeatable, a new epoch draws a new
base seed unless the workers persist, and augmentations drawn with torch's RNG inside workers repeat under the same
seed. Only relations between seeds and draws are printed, never the numbers themselves."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Probe(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "wid": info.id, "seed": info.seed, "init": torch.initial_seed(), "py": random.random(),
                "np": float(np.random.rand()), "torch": torch.rand(()).item()}


class Augment(Dataset):
    """A fixed image flipped and jittered with torch's RNG inside the worker."""

    def __init__(self):
        self.base = torch.arange(12.0).view(3, 4)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        x = self.base + i
        if torch.rand(()) < 0.5:
            x = x.flip(-1)
        return x + 0.1 * torch.randn_like(x)


def seed_numpy(worker_id):
    np.random.seed(torch.initial_seed() % 2**32)


def run(seed, **kw):
    g = torch.Generator().manual_seed(seed)
    return list(DataLoader(Probe(), batch_size=None, num_workers=2, generator=g, worker_init_fn=seed_numpy, **kw))


def main():
    rows = run(0)
    first = {}
    for r in rows:
        first.setdefault(r["wid"], r)
    print("indices", sorted(r["i"] for r in rows), sorted(first))
    print("seed_offset", first[1]["seed"] - first[0]["seed"], all(r["seed"] == r["init"] for r in rows))
    print("seed_is_u64", all(0 <= r["seed"] < 2**64 for r in rows))
    print("streams_differ", first[0]["py"] != first[1]["py"], first[0]["np"] != first[1]["np"],
          first[0]["torch"] != first[1]["torch"])
    again = run(0)
    for key in ("seed", "py", "np", "torch"):
        print("repeat", key, [r[key] for r in rows] == [r[key] for r in again])
    other = run(1)
    print("other_seed_differs", [r["seed"] for r in rows] != [r["seed"] for r in other])

    loader = DataLoader(Probe(), batch_size=None, num_workers=2, generator=torch.Generator().manual_seed(3))
    e1 = sorted({r["seed"] for r in loader})
    e2 = sorted({r["seed"] for r in loader})
    print("epochs_new_base_seed", e1 != e2, len(e1), len(e2))
    persistent = DataLoader(Probe(), batch_size=None, num_workers=2, persistent_workers=True,
                            generator=torch.Generator().manual_seed(3))
    p1 = sorted({r["seed"] for r in persistent})
    p2 = sorted({r["seed"] for r in persistent})
    print("persistent_same_seed", p1 == p2, p1 == e1)

    torch.manual_seed(5)
    a = [r["seed"] for r in DataLoader(Probe(), batch_size=None, num_workers=2)]
    torch.manual_seed(5)
    b = [r["seed"] for r in DataLoader(Probe(), batch_size=None, num_workers=2)]
    print("global_seed_repeat", a == b)

    def augmented(seed):
        g = torch.Generator().manual_seed(seed)
        return torch.stack(list(DataLoader(Augment(), batch_size=None, num_workers=2, generator=g)))

    x1, x2, x3 = augmented(7), augmented(7), augmented(8)
    print("augment", tuple(x1.shape), torch.equal(x1, x2), torch.equal(x1, x3))
    single = torch.stack(list(DataLoader(Augment(), batch_size=None)))
    print("augment_main_process", tuple(single.shape), single.dtype)
    means = (x1 - torch.stack([Augment().base + i for i in range(4)])).abs().mean().item()
    print("augment_changes_values", means > 0.01)


if __name__ == "__main__":
    main()

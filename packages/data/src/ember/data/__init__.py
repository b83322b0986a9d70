"""ember-data: ember's `torch.utils.data`: datasets, samplers, collation and the DataLoader.

Worker processes collate batches straight into shared memory and hand them to the main process
as handles (NOTE [ DataLoader worker protocol ] in `ember.data.worker`).
"""

from ember.data.dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)
from ember.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from ember.data.distributed import DistributedSampler
from ember.data.collate import default_collate, default_convert
from ember.data.worker import WorkerInfo, get_worker_info
from ember.data.dataloader import DataLoader, _DatasetKind  # noqa: F401  (PyTorch exports it too)
from ember.data import _utils  # noqa: E402, F401  (registers PyTorch's private _utils paths)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset", "StackDataset",
    "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "BatchSampler", "DistributedSampler", "default_collate", "default_convert", "DataLoader", "WorkerInfo",
    "get_worker_info",
]

__version__ = "0.2.2"

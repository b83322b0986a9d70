"""`torch.distributed.checkpoint` (DCP): save a training state (nested dicts of tensors and other values)
as a directory, each rank writing its share, and load it back in place into the given tensors.

    >>> import ember.autograd as torch
    >>> import ember.distributed.checkpoint as dcp
    >>> import tempfile, warnings
    >>> d = tempfile.mkdtemp()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")   # "assuming the intent is to save in a single process"
    ...     _ = dcp.save({"w": torch.ones(2), "step": 3}, checkpoint_id=d)
    ...     sd = {"w": torch.zeros(2), "step": 0}
    ...     dcp.load(sd, checkpoint_id=d)
    >>> sd
    {'w': tensor([1., 1.]), 'step': 3}
"""

from ember.distributed.checkpoint.api import CheckpointException
from ember.distributed.checkpoint.filesystem import FileSystemReader, FileSystemWriter
from ember.distributed.checkpoint.metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata,
                                                   TensorStorageMetadata)
from ember.distributed.checkpoint.state_dict_loader import load, load_state_dict
from ember.distributed.checkpoint.state_dict_saver import async_save, save, save_state_dict

__all__ = ["save", "load", "async_save", "save_state_dict", "load_state_dict", "FileSystemWriter",
           "FileSystemReader", "CheckpointException", "Metadata", "TensorStorageMetadata", "BytesStorageMetadata",
           "ChunkStorageMetadata"]

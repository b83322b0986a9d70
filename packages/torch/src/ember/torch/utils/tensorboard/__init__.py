"""`torch.utils.tensorboard`: `SummaryWriter` for TensorBoard, needing only the `tensorboard` package."""

from ember.torch.utils.tensorboard.writer import SummaryWriter

__all__ = ["SummaryWriter"]

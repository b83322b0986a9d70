"""`torch.nested._internal`: the path PyTorch's nested tensor class lives under."""

"""ember-bench: the PyTorch paper's evaluation for ember, side by side with PyTorch."""

__version__ = "0.2.2"

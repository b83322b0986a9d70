"""Stand-in found by `import torch` in child processes of a program run on ember (NOTE [ torch is
ember.torch ] in ember.torch._importer): installs the finder and replaces itself with ember.torch."""

import sys

if __name__ == "torch":  # imported as `torch`, not collected under its file path
    from ember.torch._importer import install

    del sys.modules["torch"]
    install()

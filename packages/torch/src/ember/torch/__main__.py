"""`python -m ember.torch script.py args...`: run an unmodified PyTorch program on ember."""

import sys

from ember.torch._importer import main

if __name__ == "__main__":  # not when a doctest collector imports this file
    sys.exit(main())

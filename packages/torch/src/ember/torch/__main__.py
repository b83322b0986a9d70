"""`python -m ember.torch script.py args...`: run an unmodified PyTorch program on ember."""

import sys

from ember.torch._importer import main

sys.exit(main())

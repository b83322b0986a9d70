"""The api programs' fork server (tests/test_api_programs.py): one process imports ember.torch once, then runs each
program it is sent in a child forked off itself, as `python -m ember.torch PROGRAM` would, so a program no longer
pays the import (about 0.9 s of its 1.3 s on the 2-core machine).

Protocol, one line each way: the test writes `[program, stdout file, stderr file]` as JSON; the server answers
"ready" once, then the child's exit code for each program (negative: the signal that ended it). A child has
/dev/null as stdin and the two files as its stdout and stderr, and is ended by SIGALRM after 600 s."""

import json
import os
import signal
import sys
import threading

import ember.torch  # noqa: F401  (what every program's `import torch` loads, imported once here)
import ember.torch.nn.functional  # noqa: F401
import ember.torch.optim  # noqa: F401
import ember.torch.utils.data  # noqa: F401
from ember.torch._importer import main

if threading.active_count() != 1:  # a fork keeps only the calling thread: the children would lack the others
    print(f"threads: {threading.enumerate()}", flush=True)
    sys.exit(3)
print("ready", flush=True)
for line in sys.stdin:
    program, out, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            opened = os.open(path, flags, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        signal.alarm(600)
        sys.exit(main([program]))  # the interpreter's own exit: atexit handlers, joined threads, flushed files
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)

"""idle_poll.py - tests/progs/idle-poll.c's loop run from Python: an
extension's C loop (here libc's poll through ctypes) that polls 500 idle
pipe ends with a 1 ms timeout and does not retry on EINTR, as CPython's
own calls do (PEP 475).  Prints how many polls were cut short; 0
natively.

    python3 idle_poll.py [ROUNDS]    (default 2000)
"""
import ctypes
import errno
import os
import sys


class PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short),
                ("revents", ctypes.c_short)]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    libc = ctypes.CDLL(None, use_errno=True)
    fds = (PollFd * 500)()
    for i in range(0, 500, 2):
        r, _ = os.pipe()
        for j in (i, i + 1):
            fds[j].fd, fds[j].events = r, 1
    cut = 0
    for _ in range(rounds):
        if libc.poll(fds, 500, 1) < 0:
            if ctypes.get_errno() != errno.EINTR:
                raise OSError(ctypes.get_errno(), "poll")
            cut += 1
    print("interrupted", cut)


main()

# kernels.py - three Python kernels of known CPU cost 1:2:3, on two threads,
# through a call chain: a Python profile's accuracy test (t1290, bench/
# hpcrun-python-accuracy.sh).
#
#   python3 kernels.py [CPU_MS]     (default 2000: the process's CPU time)
#
# Two threading threads each run worker() -> pipeline() -> stage() ->
# kernel_a, kernel_b, kernel_c, which do 1, 2 and 3 units a round; every
# kernel's unit is the same bytecode, so the units each one did are its
# share of the CPU (the ground truth: iterations counted, not time).  The
# threads take turns on the GIL and stop when the process has run CPU_MS
# of CPU time.  Prints the shares the counted units give, as
# "kernel_a 16.67 kernel_b 33.33 kernel_c 50.00", then "rounds N".
import sys
import threading
import time

UNIT = 2000     # loop iterations in a unit


def kernel_a(units):
    x = 1
    for _ in range(units * UNIT):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def kernel_b(units):
    x = 1
    for _ in range(units * UNIT):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def kernel_c(units):
    x = 1
    for _ in range(units * UNIT):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def stage(done):
    kernel_a(1)
    kernel_b(2)
    kernel_c(3)
    done["a"] += 1
    done["b"] += 2
    done["c"] += 3


def pipeline(done, until):
    while time.process_time() < until:
        for _ in range(4):
            stage(done)
        done["rounds"] += 4


def worker(done, until):
    pipeline(done, until)


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    until = time.process_time() + cpu_ms / 1000.0
    counts = [dict(a=0, b=0, c=0, rounds=0) for _ in range(2)]
    threads = [threading.Thread(target=worker, args=(c, until), name="kernels-%d" % i)
               for i, c in enumerate(counts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = {k: sum(c[k] for c in counts) for k in ("a", "b", "c", "rounds")}
    units = total["a"] + total["b"] + total["c"]
    print("kernel_a %.2f kernel_b %.2f kernel_c %.2f" %
          tuple(100.0 * total[k] / units for k in ("a", "b", "c")))
    print("rounds %d" % total["rounds"])


if __name__ == "__main__":
    main()

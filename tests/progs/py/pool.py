# pool.py - threads the program does not start itself: a
# concurrent.futures.ThreadPoolExecutor's workers (started by the pool,
# through the _thread module's C code) run crunch, and a thread started
# with _thread.start_new_thread runs spin; main waits (t1290).
#
#   python3 pool.py [CPU_MS]        (default 1000: the process's CPU time)
#
# Prints "tasks N" and a checksum.
import _thread
import concurrent.futures
import sys
import time


def crunch(seed, n):
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x % 1000


def spin(until, done):
    x = 0
    while time.process_time() < until:
        for k in range(5000):
            x ^= k * 31
    done.release()


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    until = time.process_time() + cpu_ms / 1000.0
    done = _thread.allocate_lock()
    done.acquire()
    _thread.start_new_thread(spin, (until, done))
    tasks = check = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        while tasks == 0 or time.process_time() < until:
            for r in pool.map(crunch, range(tasks, tasks + 12), [20000] * 12):
                check = (check + r) % 1000003
            tasks += 12
    done.acquire()
    print("tasks %d" % tasks)
    print("check %d" % check)


if __name__ == "__main__":
    main()

# callback.py - Python called back from C: libc's qsort(3) through ctypes,
# comparing with a Python function, so a sample in compare has the call
# path main -> sort_with_qsort (Python) -> qsort (libc) -> ctypes' C
# callback glue -> compare (Python) (t1290).
#
#   python3 callback.py [CPU_MS]       (default 1000: the process's CPU time)
#
# Prints "rounds N" and "sorted yes" when every round sorted its array.
import ctypes
import ctypes.util
import sys
import time

libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
libc.qsort.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, CMP)
libc.qsort.restype = None


def compare(a, b):
    x, y = a[0], b[0]
    # some work of its own, so that compare holds samples, not ctypes
    kx = (x * 2654435761) & 0xFFFF
    ky = (y * 2654435761) & 0xFFFF
    return (kx > ky) - (kx < ky) or (x > y) - (x < y)


def sort_with_qsort(values):
    arr = (ctypes.c_int * len(values))(*values)
    libc.qsort(arr, len(arr), ctypes.sizeof(ctypes.c_int), CMP(compare))
    return list(arr)


def key(x):
    return ((x * 2654435761) & 0xFFFF, x)


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    until = time.process_time() + cpu_ms / 1000.0
    rounds = 0
    ok = True
    while rounds == 0 or time.process_time() < until:
        values = [(i * 7919 + rounds) % 10007 for i in range(5000)]
        ok = ok and sort_with_qsort(values) == sorted(values, key=key)
        rounds += 1
    print("rounds %d" % rounds)
    print("sorted %s" % ("yes" if ok else "NO"))


if __name__ == "__main__":
    main()

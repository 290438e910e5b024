# CPU-bound pure-Python work: argv NTHREADS ROUNDS.  Each round runs the eval
# loop (fib), a recursion through C (map -> the eval loop again, so the C
# stack grows with it), dict, str, int (long) and list work and sorting, so
# the time spreads over many C functions of libpython.  With NTHREADS > 1
# the rounds are shared out among that many threads (which take turns on
# the GIL).  Prints the process CPU time.
import sys
import threading
import time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def tree(n):
    return 1 if n == 0 else sum(map(tree, (n - 1, n - 1)))

def dicts(n):
    d = {}
    for i in range(n):
        d["k%d" % i] = i
    s = 0
    for k in d:
        s += d[k]
    return s

def strings(n):
    parts = [str(i * 7919) for i in range(n)]
    s = ",".join(parts)
    return len(s.split(",")) + s.count("7") + len(s.upper())

def bigints(n):
    x = 1
    for i in range(1, n):
        x = x * i % (10 ** 60 + 7) + i ** 3
    return x

def sorting(n):
    xs = [(i * 2654435761) % 1000003 for i in range(n)]
    ys = sorted(xs)
    zs = sorted(map(str, xs))
    return ys[n // 2] + len(zs[n // 2])

def work(rounds, out):
    r = 0
    for _ in range(rounds):
        r += fib(21) + tree(13) + dicts(50000) + strings(50000)
        r += bigints(30000) % 1000 + sorting(100000)
    out.append(r)

def main():
    nthreads, rounds = int(sys.argv[1]), int(sys.argv[2])
    t0 = time.process_time()
    out = []
    if nthreads == 1:
        work(rounds, out)
    else:
        ts = [threading.Thread(target=work, args=(rounds // nthreads, out))
              for _ in range(nthreads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    print("%.2f" % (time.process_time() - t0))

main()

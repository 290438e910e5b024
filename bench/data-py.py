# Allocation-heavy pure-Python work for bench/hpcrun-data-overhead.sh:
# argv ROUNDS.  Each round builds dicts and lists of fresh objects, sorts
# them and throws them away, so the interpreter allocates (small objects
# from its own arenas, large lists and dict tables from malloc) as well as
# computing.  Prints a checksum.
import sys

def round_(r):
    d = {}
    for i in range(20000):
        d["k%d" % (i * 7 + r)] = [i, str(i), (i, r)]
    keys = sorted(d, key=lambda k: d[k][1])
    lst = [d[k][0] * 3 for k in keys]
    lst.sort(reverse=True)
    t = {}
    for v in lst[:5000]:
        t.setdefault(v % 97, []).append(v)
    return sum(len(x) for x in t.values()) + lst[0] + len(keys)

total = 0
for r in range(int(sys.argv[1]) if len(sys.argv) > 1 else 20):
    total += round_(r)
print(total)

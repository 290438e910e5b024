# genasync.py - generators and coroutines: a generator pipeline
# (produce -> transform -> consume, each frame resumed by the one below
# it) and asyncio tasks (crunch awaited by worker, run by the event loop
# in C) (t1290).
#
#   python3 genasync.py [CPU_MS]    (default 1000: the process's CPU time)
#
# Half the CPU time goes to each part.  Prints "rounds N" and a checksum.
import asyncio
import sys
import time


def produce(n, seed):
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        yield x


def transform(items):
    for x in items:
        if x % 3:
            yield (x >> 4) ^ (x << 2) & 0xFFFFF


def consume(items):
    total = 0
    for x in items:
        total = (total + x * x) % 1000003
    return total


async def crunch(i, n):
    x = i + 1
    for k in range(n):
        x = (x * 69069 + k) & 0xFFFFFFFF
        if k % 2000 == 0:
            await asyncio.sleep(0)
    return x


async def worker(i, n):
    return await crunch(i, n) % 1000


async def gather_all(n):
    return sum(await asyncio.gather(*(worker(i, n) for i in range(4))))


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    half = cpu_ms / 2000.0
    start = time.process_time()
    rounds = check = 0
    while rounds == 0 or time.process_time() < start + half:
        check = (check + consume(transform(produce(20000, rounds + 1)))) % 1000003
        rounds += 1
    while time.process_time() < start + 2 * half:
        check = (check + asyncio.run(gather_all(20000))) % 1000003
        rounds += 1
    print("rounds %d" % rounds)
    print("check %d" % check)


if __name__ == "__main__":
    main()

# py-sample.py - a Python program whose code objects cover what line
# tables hold: loops, branches, nested functions and classes, lambdas,
# comprehensions, try/except, long jumps, far line gaps, multi-line
# expressions and a function whose name is not ASCII.
import math


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


class Kernel:
    def __init__(self, weight):
        self.weight = weight

    def run(self, n):
        total = 0
        for i in range(n * self.weight):
            total += (i * i) % 7
        return total

    class Inner:
        def deep(self):
            return [x * 2 for x in range(3)]


def branches(x):
    try:
        if x > 3:
            y = x / 0
        elif x < -3:
            y = {k: k for k in range(x)}
        else:
            y = (
                x +
                1
            )
    except ZeroDivisionError:
        y = None
    finally:
        pass
    return y


def far_apart():
    a = 1
    # a gap of many lines follows
















































































































































    b = 2
    return a + b


def ünïcode_name(s):
    return s.upper()


def long_body(n):
    s = 0
    while n > 0:
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        s += math.sqrt(n)
        n -= 1
    return s


square = lambda v: v * v  # noqa: E731


async def coro():
    return 1


def gen():
    yield 1
    yield 2


if __name__ == "__main__":
    print(fib(10), Kernel(2).run(10), branches(1), far_apart(),
          ünïcode_name("x"), long_body(3), square(4), list(gen()))

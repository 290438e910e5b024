# classes.py - object-oriented Python: methods, a subclass overriding
# them, nested functions, a lambda, a property, a static method and
# dunder methods that sorting calls.  Its frames carry qualified names
# (co_qualname, 3.11+; 3.10 has the plain name): Parser.parse,
# Parser.parse.<locals>.step, Tokenizer.__iter__, Node.__lt__,
# JsonParser.parse (t1290).
#
#   python3 classes.py [CPU_MS]     (default 1000: the process's CPU time)
#
# Prints "rounds N" and a checksum.
import sys
import time


class Node:
    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        self.kind = kind
        self.value = value

    def __lt__(self, other):
        return (self.kind, self.value) < (other.kind, other.value)

    @property
    def weight(self):
        return len(self.value) if self.kind == "word" else int(self.value)


class Tokenizer:
    def __init__(self, text):
        self.text = text

    def __iter__(self):
        word = []
        for ch in self.text:
            if ch.isalnum():
                word.append(ch)
            elif word:
                yield "".join(word)
                word = []
        if word:
            yield "".join(word)


class Parser:
    def __init__(self):
        self.nodes = []

    @staticmethod
    def classify(token):
        return "num" if token.isdigit() else "word"

    def parse(self, text):
        def step(token):
            node = Node(self.classify(token), token)
            self.nodes.append(node)
            return node.weight

        total = 0
        for token in Tokenizer(text):
            total += step(token)
        return total

    def ranked(self):
        return sorted(self.nodes)


class JsonParser(Parser):
    def parse(self, text):
        return super().parse(text.replace("{", " ").replace("}", " ")) + 1


def make_text(n, seed):
    x = seed
    parts = []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        parts.append(str(x % 1000) if x & 4 else "w" * (1 + x % 9))
    return "{" + " ".join(parts) + "}"


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    until = time.process_time() + cpu_ms / 1000.0
    rounds = check = 0
    while rounds == 0 or time.process_time() < until:
        p = JsonParser() if rounds & 1 else Parser()
        check += p.parse(make_text(2000, rounds + 1))
        key = lambda node: node.weight
        check += sum(map(key, p.ranked()[:100]))
        rounds += 1
    print("rounds %d" % rounds)
    print("check %d" % (check % 1000003))


if __name__ == "__main__":
    main()

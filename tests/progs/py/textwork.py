# textwork.py - a program like many people's: records made, written and
# read back as JSON, log lines parsed with regular expressions, tallied
# and sorted.  Its time spreads over a dozen Python functions and the C
# code of json, re and sorting under them (t1290; bench/
# hpcrun-python-perf.sh compares hpcrun's shares with perf's on it).
#
#   python3 textwork.py [CPU_MS]    (default 2000: the process's CPU time)
#
# Each round: make_records -> encode (json.dumps) -> decode (json.loads),
# make_log -> parse_log (re) -> tally, sort_records (sorted with a key
# function, by_score), render.  Prints "rounds N" and a checksum.
import json
import re
import sys
import time

LINE = re.compile(r"^(?P<ip>\d+\.\d+\.\d+\.\d+) - - \[(?P<day>\d+)/(?P<mon>\w+)/"
                  r"(?P<year>\d+)[^\]]*\] \"(?P<verb>[A-Z]+) (?P<path>\S+) [^\"]*\" "
                  r"(?P<status>\d{3}) (?P<size>\d+)$")
WORD = re.compile(r"[a-z]+")


def make_records(n, seed):
    out = []
    x = seed
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append({"id": i, "name": "user%d" % (x % 9973), "score": x % 1000,
                    "tags": ["t%d" % (x % 7), "t%d" % (x % 11)],
                    "ratio": (x % 997) / 997.0, "active": bool(x & 1)})
    return out


def encode(records):
    return json.dumps(records, sort_keys=True)


def decode(text):
    return json.loads(text)


def make_log(n, seed):
    verbs = ("GET", "POST", "PUT", "DELETE")
    lines = []
    x = seed
    for i in range(n):
        x = (x * 69069 + 1) & 0xFFFFFFFF
        lines.append('10.%d.%d.%d - - [%02d/Nov/2026:03:%02d:%02d +0000] "%s /api/item/%d?q=%s HTTP/1.1" %d %d'
                     % (x % 256, (x >> 8) % 256, (x >> 16) % 256, 1 + x % 28, x % 60,
                        (x >> 6) % 60, verbs[x % 4], x % 5000, "abcxyz"[x % 6] * (1 + x % 5),
                        (200, 201, 404, 500)[(x >> 3) % 4], x % 100000))
    return lines


def parse_log(lines):
    hits = []
    for line in lines:
        m = LINE.match(line)
        if m:
            hits.append((m.group("verb"), m.group("path"), int(m.group("status")),
                         int(m.group("size"))))
    return hits


def tally(hits):
    by_status = {}
    words = {}
    for verb, path, status, size in hits:
        by_status[status] = by_status.get(status, 0) + size
        for w in WORD.findall(path):
            words[w] = words.get(w, 0) + 1
    return by_status, words


def by_score(rec):
    return (-rec["score"], rec["name"], rec["id"])


def sort_records(records):
    return sorted(records, key=by_score)


def render(records, by_status):
    rows = ["%-10s %5d %6.3f" % (r["name"], r["score"], r["ratio"]) for r in records[:200]]
    rows += ["%d %d" % kv for kv in sorted(by_status.items())]
    return "\n".join(rows)


def one_round(seed):
    records = decode(encode(make_records(3000, seed)))
    by_status, words = tally(parse_log(make_log(3000, seed)))
    ranked = sort_records(records)
    return len(render(ranked, by_status)) + len(words)


def main():
    cpu_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    until = time.process_time() + cpu_ms / 1000.0
    rounds = check = 0
    while rounds == 0 or time.process_time() < until:
        check = (check + one_round(rounds + 1)) % 1000003
        rounds += 1
    print("rounds %d" % rounds)
    print("check %d" % check)


if __name__ == "__main__":
    main()

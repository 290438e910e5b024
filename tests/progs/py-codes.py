# py-codes.py - CPython's own answers for the code objects of a script:
# each code's fields as hpcrun copies them (lib/hpcpy.h) and the lines
# co_lines() gives, for lib/pyline.c's tests and hpcprof's fixtures.
#
# python3 tests/progs/py-codes.py SCRIPT.py >codes.txt
# Per code object, two lines:
#   code MAJOR MINOR FIRSTLINE NCODE QUALNAME FILENAME LINETABLE
#   lines START:END:LINE ...        (LINE -1: None)
# QUALNAME (co_name before 3.11) and FILENAME escaped as .hpcpy escapes
# them, LINETABLE co_linetable in hex ("-" when empty), NCODE the
# bytecode's bytes (len(co_code): Py_SIZE(code) code units from 3.11).
import sys

def esc(s):
    b = s.encode("utf-8", "surrogateescape")
    if not b:
        return "%"
    return "".join(chr(c) if 0x21 <= c <= 0x7e and c != 0x25 else "%%%02X" % c
                   for c in b)

def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)

path = sys.argv[1]
with open(path) as f:
    top = compile(f.read(), path, "exec")
v = sys.version_info
for c in walk(top):
    name = c.co_qualname if v >= (3, 11) else c.co_name
    table = c.co_linetable.hex() or "-"
    print("code", v.major, v.minor, c.co_firstlineno, len(c.co_code),
          esc(name), esc(c.co_filename), table)
    print("lines", " ".join("%d:%d:%d" % (s, e, -1 if l is None else l)
                            for s, e, l in c.co_lines()))

# pyquals.py - the functions of a Python source file as the interpreter
# names their code objects: "QUALNAME NAME FIRSTLINE" a line, QUALNAME as
# co_qualname (Parser.parse.<locals>.step), NAME as co_name, FIRSTLINE as
# co_firstlineno (a decorated function's first decorator).  Tests build the
# names they expect in a profile from it (t1290): "FILE:FIRSTLINE QUALNAME".
#
#   python3 pyquals.py FILE.py
import ast
import sys


def walk(node, prefix, out):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            name = "<lambda>" if isinstance(child, ast.Lambda) else child.name
            lines = [child.lineno] + [d.lineno for d in getattr(child, "decorator_list", [])]
            out.append((prefix + name, name, min(lines)))
            walk(child, prefix + name + ".<locals>.", out)
        elif isinstance(child, ast.ClassDef):
            walk(child, prefix + child.name + ".", out)
        else:
            walk(child, prefix, out)


def main():
    with open(sys.argv[1]) as f:
        tree = ast.parse(f.read(), sys.argv[1])
    out = []
    walk(tree, "", out)
    for qualname, name, line in out:
        print(qualname, name, line)


if __name__ == "__main__":
    main()

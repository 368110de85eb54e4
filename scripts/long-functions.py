#!/usr/bin/env python3
"""Lists the Swift functions (initialisers and nested functions too) longer than N lines (default 80)
in the given folders (default Sources/), with whether the comment above says why.

    scripts/long-functions.py [--lines N] [DIR...]

A function's length runs from its `func`/`init` line to its closing brace. Braces inside strings, multi-line
strings and comments are skipped. The comment above a function (`///` and `//` lines, attributes between) counts
as giving a reason when a `//` line of it starts with "Long" ("Long by design: …") or "About N lines: …", the
house's way of saying why.
"""
import os
import re
import sys

DECL = re.compile(r'^\s*(?:@[\w()":, .]+\s+)*(?:(?:public|package|internal|private|fileprivate|static|class|final|'
                  r'mutating|nonmutating|override|convenience|required|nonisolated|@inlinable|@usableFromInline)\s+)*'
                  r'(func\s+[^\s(<]+|init[?!]?)\s*[(<]')


def strip(line, state):
    """The line without strings and comments; state carries a multi-line string or block comment across lines."""
    out = []
    i = 0
    while i < len(line):
        if state == 'block':
            j = line.find('*/', i)
            if j < 0:
                return ''.join(out), state
            i, state = j + 2, None
        elif state == 'multi':
            j = line.find('"""', i)
            if j < 0:
                return ''.join(out), state
            i, state = j + 3, None
        elif line.startswith('//', i):
            break
        elif line.startswith('/*', i):
            state = 'block'
            i += 2
        elif line.startswith('"""', i):
            state = 'multi'
            i += 3
        elif line[i] == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == '\\' else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return ''.join(out), state


def functions(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    code, state = [], None
    for line in lines:
        text, state = strip(line, state)
        code.append(text)
    for n, text in enumerate(code):
        m = DECL.match(text)
        if not m:
            continue
        depth, opened = 0, False
        for k in range(n, len(code)):
            for ch in code[k]:
                if ch == '{':
                    depth += 1
                    opened = True
                elif ch == '}':
                    depth -= 1
            if opened and depth <= 0:
                break
            if not opened and k > n and code[k].strip() and '{' not in code[k] and DECL.match(code[k]):
                break  # a protocol requirement: no body
        if not opened:
            continue
        comment = []
        j = n - 1
        while j >= 0 and (lines[j].strip().startswith('//') or lines[j].strip().startswith('@')):
            comment.append(lines[j])
            j -= 1
        reason = any(re.match(r'\s*//\s*(long\b|about \d+ lines)', c, re.I) for c in comment if c.strip().startswith('//'))
        yield n + 1, k - n + 1, m.group(1).replace('func ', ''), reason


def main(argv):
    limit, dirs = 80, []
    args = iter(argv)
    for a in args:
        if a == '--lines':
            limit = int(next(args))
        else:
            dirs.append(a)
    found = []
    for d in dirs or ['Sources']:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith('.swift') and 'Generated' not in root:
                    p = os.path.join(root, f)
                    found += [(length, p, line, name, reason) for line, length, name, reason in functions(p) if length > limit]
    for length, p, line, name, reason in sorted(found, reverse=True):
        print(f"{length:4d}  {p}:{line}  {name}  {'reason given' if reason else 'NO REASON'}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

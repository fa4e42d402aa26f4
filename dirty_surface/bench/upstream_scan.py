#!/usr/bin/env python3
"""Port of the upstream dirty-surface scanner loop (gen_pipe_dirty_surface.py, spec sections
1.5-1.9), written from the behavioural spec for `mgctl dirty-surface bench` only: the same
masking, header pattern, mutator and backend patterns, immediacy and counts. It is not the
upstream script (which also runs the whole write analysis in every mode).

usage: upstream_scan.py ROOT PREFIXES SCAN_ROOT...   (PREFIXES comma-separated)
prints one JSON object: the counts and the scan time in seconds.
"""
import json
import os
import re
import sys
import time


def mask(text):
    out = list(text)
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c == '/' and i + 1 < n and text[i + 1] == '/':
            while i < n and text[i] != '\n':
                out[i] = ' '
                i += 1
        elif c == '/' and i + 1 < n and text[i + 1] == '*':
            out[i] = out[i + 1] = ' '
            i += 2
            while i < n and not (text[i] == '*' and i + 1 < n and text[i + 1] == '/'):
                if text[i] != '\n':
                    out[i] = ' '
                i += 1
            if i < n:
                out[i] = out[i + 1] = ' '
                i += 2
        elif c == '"' or c == "'":
            out[i] = ' '
            i += 1
            while i < n and text[i] != c:
                if text[i] == '\\' and i + 1 < n:
                    out[i] = ' '
                    if text[i + 1] != '\n':
                        out[i + 1] = ' '
                    i += 2
                else:
                    if text[i] != '\n':
                        out[i] = ' '
                    i += 1
            if i < n:
                out[i] = ' '
                i += 1
        else:
            i += 1
    return ''.join(out)


HEADER = re.compile(r'^[ \t]*[A-Za-z_][\w:<>,&*\s]*?\b(\w+)\s*\(([^;{}]*)\)\s*(?:const)?\s*(?:noexcept)?\s*\{', re.M)
NOTE = re.compile(r'MGP_NOTE_MUTATION\(\s*(\w+)\s*\)')
BACKEND = re.compile(r'gBackendFunctionsTable\.GL\.\s*(\w+)|pActiveBackendObject->\s*(\w+)')
DROPPED = {'if', 'for', 'while', 'switch', 'catch', 'else'}


def match_brace(masked, open_):
    depth = 0
    for k in range(open_, len(masked)):
        ch = masked[k]
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                return k
    return len(masked)


def main():
    root, prefixes, roots = sys.argv[1], sys.argv[2].split(','), sys.argv[3:]
    mutator = re.compile(r'pGLContext->\s*((?:%s)\w*)\s*\(' % '|'.join(map(re.escape, prefixes)))
    t0 = time.perf_counter()
    files = []
    for r in roots:
        for d, dirs, names in os.walk(os.path.join(root, r)):
            dirs.sort()
            for name in sorted(names):
                if name.endswith('.cpp') or name.endswith('.h'):
                    files.append(os.path.join(d, name))
    files.sort()
    calls = []
    immediate = 0
    points = 0
    imm_names = set()
    for path in files:
        with open(path, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        masked = mask(text)
        a_calls = [(m.start(), m.group(1)) for m in mutator.finditer(masked)]
        calls.extend(name for _, name in a_calls)
        for h in HEADER.finditer(masked):
            name = h.group(1)
            if name in DROPPED:
                continue
            open_ = h.end() - 1
            close = match_brace(masked, open_)
            body = masked[open_:close]
            for _ in NOTE.finditer(body):
                calls.append(name)
            inside = [n for off, n in a_calls if open_ <= off <= close]
            if inside and BACKEND.search(body):
                points += 1
                immediate += len(inside)
                imm_names.update(inside)
    elapsed = time.perf_counter() - t0
    print(json.dumps({
        'files': len(files), 'calls': len(calls), 'distinct': len(set(calls)),
        'immediate_calls': immediate, 'points': points, 'immediate_distinct': len(imm_names),
        'deferred': len(calls) - immediate, 'seconds': elapsed,
    }))


if __name__ == '__main__':
    main()

#!/usr/bin/env bash
# scripts/check-capi-coverage.sh: checks the C API against the GraphBLAS C API spec 2.0.
#
# Reads the spec's functions (scripts/capi-spec-2.0-functions.txt) and predefined objects
# (scripts/capi-spec-2.0-objects.txt), then checks that each one is (1) declared in include/GraphBLAS.h
# with the asm label that links it to snk_<name> (found by preprocessing the header as C11), and (2)
# exported by the built library (nm -D). Prints the counts and every name missing; exits 1 if any is.
# Usage: scripts/check-capi-coverage.sh [path/to/libsnack.so]   (default: the newest build*/src/libsnack.so)
set -euo pipefail
cd "$(dirname "$0")/.."
lib="${1:-$(ls -t build*/src/libsnack.so 2>/dev/null | head -1 || true)}"
cc="${CC:-cc}"
pre=$(mktemp)
trap 'rm -f "$pre"' EXIT
"$cc" -std=c11 -E -P -DSNACK_C_API -Iinclude include/GraphBLAS.h > "$pre"
/usr/bin/python3 - "$pre" "$lib" <<'PY'
import re, subprocess, sys
pre, lib = sys.argv[1], sys.argv[2]
text = open(pre).read()
# Declarations whose asm label matches their name: "NAME ( ... ) __asm__("snk_" "NAME")" or "NAME __asm__(...)".
labelled = set()
for m in re.finditer(r'\b((?:GrB|SNK)_\w+)\s*(\([^;]*?\))?\s*__asm__\("snk_" "(\w+)"\)', text):
    if m.group(1) == m.group(3):
        labelled.add(m.group(1))
def spec_list(path):
    return [l.strip() for l in open(path) if l.strip() and not l.startswith('#')]
functions = spec_list('scripts/capi-spec-2.0-functions.txt')
objects = spec_list('scripts/capi-spec-2.0-objects.txt')
exported = None
if lib:
    out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
    exported = {s[4:] for s in (l.split()[-1] for l in out.splitlines() if l.strip()) if s.startswith('snk_')}
    unprefixed = sorted(s for s in (l.split()[-1] for l in out.splitlines() if l.strip())
                        if s.startswith(('GrB_', 'GxB_', 'GB_')))
missing = 0
for kind, names in (('functions', functions), ('predefined objects', objects)):
    not_declared = [n for n in names if n not in labelled]
    print(f'spec 2.0 {kind}: {len(names)}; declared in include/GraphBLAS.h: {len(names) - len(not_declared)}')
    for n in not_declared: print(f'  missing from the header: {n}')
    missing += len(not_declared)
    if exported is not None:
        not_exported = [n for n in names if n not in exported]
        print(f'spec 2.0 {kind}: exported by {lib} as snk_<name>: {len(names) - len(not_exported)}')
        for n in not_exported: print(f'  not exported: {n}')
        missing += len(not_exported)
if exported is None:
    print('no library given or found: the exported symbols were not checked')
    missing += 1
else:
    extensions = sorted(n for n in exported if n.startswith('SNK_'))
    print(f'SNK_ extensions exported: {len(extensions)} ({", ".join(extensions)})')
    print(f'unprefixed GrB_/GxB_/GB_ symbols defined by the library (must be none): {len(unprefixed)}')
    for s in unprefixed[:20]: print(f'  {s}')
    missing += len(unprefixed)
print('missing: nothing' if missing == 0 else f'missing: {missing}')
sys.exit(1 if missing else 0)
PY

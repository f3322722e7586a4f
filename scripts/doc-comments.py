#!/usr/bin/env python3
"""Counts the public declarations of each library target and those without a `///` doc comment.

    scripts/doc-comments.py [TARGET…]      (Curlfire and the four integrations by default)

A declaration is a line starting with `public` or `open` (after attributes such as `@discardableResult`
or `nonisolated(nonsending)`); its comment is the `///` line (or the end of a `/** */` block) just
above it and its attributes. Exits 1 when any declaration has none, listing them. DocC's own
coverage (`make docs-coverage`) also counts members a type inherits or gets synthesized, which have
no comment in this code; this check counts only what the code declares.
"""
import glob
import re
import sys

TARGETS = sys.argv[1:] or ["Curlfire", "CurlfireTesting", "CurlfireHTTPTypes", "CurlfireMetrics", "CurlfireTracing", "CurlfireOpenAPI"]
DECLARATION = re.compile(r"^(@\w+(\([^)]*\))?\s+)*(nonisolated\(nonsending\)\s+)?(public|open)\s")

missing_total = 0
for target in TARGETS:
    declarations, missing = 0, []
    for path in sorted(glob.glob(f"Sources/{target}/**/*.swift", recursive=True)):
        lines = open(path, encoding="utf-8").read().split("\n")
        for index, line in enumerate(lines):
            text = line.strip()
            if not DECLARATION.match(text) or text.startswith("public import"):
                continue
            declarations += 1
            above = index - 1
            while above >= 0 and lines[above].strip().startswith("@"):
                above -= 1
            comment = lines[above].strip() if above >= 0 else ""
            if not (comment.startswith("///") or comment.endswith("*/")):
                missing.append(f"{path}:{index + 1}: {text[:100]}")
    documented = declarations - len(missing)
    share = 100.0 * documented / declarations if declarations else 100.0
    print(f"{target:18} {documented:4}/{declarations:<4} public declarations with a doc comment ({share:.1f}%)")
    for entry in missing:
        print(f"    {entry}")
    missing_total += len(missing)
sys.exit(1 if missing_total else 0)

#!/usr/bin/env python3
"""Checks that every Swift module imports only what Package.swift says it depends on
(docs/architecture.md, "Modules"): a module that reaches a library through another's
dependencies breaks the day that other drops it, and hides the real layering.

    swift package describe --type json | import-check.py

Exits 1 naming each import its target does not declare.
"""
import json
import re
import sys
from pathlib import Path

# Modules of the toolchain, there for every target.
TOOLCHAIN = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Synchronization", "Dispatch", "Glibc",
             "Testing", "XCTest", "_Concurrency"}
IMPORT = re.compile(r"^(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)

package = json.load(sys.stdin)
root = Path(package["path"])
problems = []
for target in package["targets"]:
    if target["type"] == "system-target":
        continue
    declared = set(target.get("target_dependencies") or []) | set(target.get("product_dependencies") or [])
    allowed = declared | TOOLCHAIN | {target["name"]}
    for source in target.get("sources") or []:
        path = root / target["path"] / source
        for module in sorted(set(IMPORT.findall(path.read_text()))):
            if module not in allowed:
                problems.append(f"{target['name']}: {path.relative_to(root)} imports {module}, which Package.swift does not declare")
for line in problems:
    print(line)
if problems:
    sys.exit(1)
print(f"every module imports only its declared dependencies ({len(package['targets'])} targets)")

#!/usr/bin/env python3
"""Checks that the ReelFarmClient product builds from Foundation and our own pure Swift
only (docs/api.md, "Clients"): no system library (libav, ZeroMQ, SQLite, libcurl, …) and
no other package anywhere in its targets' dependency closure.

    swift package describe --type json | client-graph-check.py

Exits 1 naming what the client would link.
"""
import json
import sys

package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
product = next(p for p in package["products"] if p["name"] == "ReelFarmClient")
seen, queue, problems = set(), list(product["targets"]), []
while queue:
    name = queue.pop()
    if name in seen:
        continue
    seen.add(name)
    target = targets[name]
    if target["type"] == "system-target":
        problems.append(f"{name} is a system library")
    for dependency in target.get("product_dependencies") or []:
        problems.append(f"{name} depends on the package product {dependency}")
    queue.extend(target.get("target_dependencies") or [])
if problems:
    sys.exit("ReelFarmClient would link more than Foundation: " + "; ".join(problems))
print("ReelFarmClient depends on " + ", ".join(sorted(seen)) + ": no system library, no other package")

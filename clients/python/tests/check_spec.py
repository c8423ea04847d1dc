#!/usr/bin/env python3
"""Holds the client's models against docs/api.yaml, so the two cannot drift apart.

    check_spec.py API_YAML

For each model in reelfarm.models.SCHEMA_FIELDS: every JSON name it reads is a property of
its schema, and every property the schema requires is read or listed in IGNORED; the
client's FarmErrorCode and JobState are the spec's enums. Exits 1 naming each difference.
"""
import sys

import yaml

from reelfarm.models import SCHEMA_FIELDS, FarmErrorCode, JobState

# Required properties the client leaves unread, and why.
IGNORED = {
    "JobStatus": {"workers", "reusedShards"},    # who made the shards: the dashboard's, not an app's
    "BatchStatus": {"shards", "reusedShards"},   # counts an app does not act on
}

spec = yaml.safe_load(open(sys.argv[1]))
schemas = spec["components"]["schemas"]
differences = []
for model, (schema_name, fields) in SCHEMA_FIELDS.items():
    schema = schemas.get(schema_name)
    if schema is None:
        differences.append(f"{model}: no schema {schema_name} in the spec")
        continue
    properties = set(schema.get("properties", {}))
    for field, name in fields.items():
        if name not in properties:
            differences.append(f"{model}.{field} reads '{name}', which {schema_name} does not have")
    unread = set(schema.get("required", [])) - set(fields.values()) - IGNORED.get(model, set())
    for name in sorted(unread):
        differences.append(f"{model} does not read '{name}', which {schema_name} requires")
codes = set(schemas["ErrorCode"]["enum"])
if codes != {c.value for c in FarmErrorCode}:
    differences.append(f"FarmErrorCode differs from ErrorCode: {sorted(codes ^ {c.value for c in FarmErrorCode})}")
states = set(schemas["JobStatus"]["properties"]["state"]["enum"])
if states != {s.value for s in JobState}:
    differences.append(f"JobState differs from JobStatus.state: {sorted(states ^ {s.value for s in JobState})}")
for line in differences:
    print(line)
if differences:
    sys.exit(1)
print(f"the client's models match the spec ({len(SCHEMA_FIELDS)} schemas, {len(codes)} error codes)")

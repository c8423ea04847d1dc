#!/usr/bin/env python3
"""Checks JSON documents against docs/session.schema.json; prints `valid` or `invalid: why`
per document, one line each, in argument order. Used by ReelCLITests."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
jsonschema.Draft202012Validator.check_schema(schema)
for path in sys.argv[2:]:
    try:
        errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    except json.JSONDecodeError as error:
        print(f"invalid: not JSON: {error}")
        continue
    print("valid" if not errors else "invalid: " + errors[0].message.replace("\n", " ")[:200])

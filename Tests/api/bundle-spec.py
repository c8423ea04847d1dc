#!/usr/bin/env python3
"""Writes docs/api.yaml as one self-contained document: the session JSON Schema it names by
$ref (docs/session.schema.json) becomes components/schemas/Session, its $defs become
Session_NAME beside it. Client generators that read one file only (openapi-python-client)
take this bundle; the spec itself keeps one source for the session's schema.

    bundle-spec.py docs/api.yaml OUT.json
"""
import json
import os
import sys

import yaml


def schema(node):
    """A boolean schema as the object schema it means (`true` is `{}`), which generators
    that model schemas as objects accept."""
    if node is True:
        return {}
    if node is False:
        return {"not": {}}
    return rewrite(node)


def rewrite(node):
    """Points every $ref into the session schema's $defs at its bundled component."""
    if isinstance(node, dict):
        if "properties" in node:
            node = dict(node, properties={key: schema(value) for key, value in node["properties"].items()})
        for key in ("items", "additionalProperties"):
            if node.get(key) is True:
                node = dict(node, **{key: {}})
        return {key: ("#/components/schemas/Session_" + value[len("#/$defs/"):]
                      if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/") else rewrite(value))
                for key, value in node.items()}
    if isinstance(node, list):
        return [rewrite(item) for item in node]
    return node


def main(spec_path, out_path):
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    with open(os.path.join(os.path.dirname(spec_path), "session.schema.json")) as f:
        session = json.load(f)
    schemas = spec["components"]["schemas"]
    for name, definition in session.pop("$defs", {}).items():
        schemas["Session_" + name] = rewrite(definition)
    for key in ("$schema", "$id"):
        session.pop(key, None)
    schemas["Session"] = rewrite(session)
    # Every session in a request body (a job's, a batch's) points at the bundled schema.
    sessions = [body["properties"]["session"] for body in schemas.values() if "session" in body.get("properties", {})]
    assert sessions and all(request.get("$ref") == "session.schema.json" for request in sessions), sessions
    for request in sessions:
        request["$ref"] = "#/components/schemas/Session"
    with open(out_path, "w") as f:
        json.dump(spec, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

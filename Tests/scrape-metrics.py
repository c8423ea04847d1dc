#!/usr/bin/env python3
"""Fetches a Prometheus endpoint and parses it with prometheus_client's parser (not ours).

Prints one JSON object: {"name{label=value,...}": value, ...} for every sample, or exits
1 with the parser's complaint when the text is not valid exposition format.
"""
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

with urllib.request.urlopen(sys.argv[1], timeout=10) as response:
    content_type = response.headers.get("Content-Type", "")
    text = response.read().decode("utf-8")
if not content_type.startswith("text/plain"):
    sys.exit(f"Content-Type is {content_type!r}, not text/plain")
samples = {}
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
        samples[f"{sample.name}{{{labels}}}"] = sample.value
print(json.dumps(samples))

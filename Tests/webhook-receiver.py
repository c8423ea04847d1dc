#!/usr/bin/env python3
"""A webhook receiver for the tests: answers 500 to the first delivery of each event and
200 after; checks each signature with Python's own hmac (not the coordinator's code).

    webhook-receiver.py SECRET_FILE PORT_FILE LOG_FILE

Writes the port it listens on to PORT_FILE, and one JSON line per request to LOG_FILE:
{"delivery", "event", "status" (what it answered), "signatureValid", "fresh", "body"}.
"""
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

secret = open(sys.argv[1], "rb").read().strip()
seen = set()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        fields = dict(part.split("=", 1) for part in self.headers.get("X-Reel-Signature", "").split(",") if "=" in part)
        timestamp = fields.get("t", "0")
        expected = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, fields.get("v1", ""))
        fresh = abs(time.time() - int(timestamp)) < 300
        event = self.headers.get("X-Reel-Event", "")
        status = 200 if event in seen else 500
        seen.add(event)
        with open(sys.argv[3], "a") as log:
            log.write(json.dumps({"delivery": self.headers.get("X-Reel-Delivery"), "event": event, "status": status,
                                  "signatureValid": valid, "fresh": fresh, "body": json.loads(body)}) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Receiver)
with open(sys.argv[2], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()

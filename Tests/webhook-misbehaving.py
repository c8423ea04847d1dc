#!/usr/bin/env python3
"""Webhook receivers that misbehave, for the tests (loopback only):

    webhook-misbehaving.py silent|endless PORT_FILE LOG_FILE

silent: accepts each connection, reads the request, and never answers (the socket stays
open). endless: answers 500 with a chunked body that never ends, 64 KiB a write, until
the client goes. Writes its port to PORT_FILE and one line per request to LOG_FILE.
"""
import socket
import sys
import threading
import time

mode, port_file, log_file = sys.argv[1], sys.argv[2], sys.argv[3]
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(64)
with open(port_file, "w") as f:
    f.write(str(server.getsockname()[1]))


def serve(connection):
    with connection:
        connection.settimeout(30)
        try:
            request = connection.recv(65536)
            with open(log_file, "a") as log:
                log.write(f"{time.time():.3f} {request.split(b' ', 2)[:2]}\n")
            if mode == "silent":
                time.sleep(120)
                return
            connection.sendall(b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n"
                               b"Content-Type: text/plain\r\n\r\n")
            chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
            while True:
                connection.sendall(chunk)
        except OSError:
            return


while True:
    client, _ = server.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()

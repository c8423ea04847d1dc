#!/usr/bin/env python3
"""An HTTP/1.1 proxy on loopback that drops connections where a flaky network would, and
counts what it forwards, for the client libraries' tests (docs/api.md, "Clients").

    cutting-proxy.py UPSTREAM_PORT STATE_FILE [--cut-put N:BYTES] [--cut-events EVENTS]

Listens on 127.0.0.1 on a free port and writes {"port": P} to STATE_FILE, then after every
request the counts: {"port", "putBodyBytes", "putRanges", "lastEventIDs", "cuts"}.

--cut-put N:BYTES   the Nth PUT (from 1) is cut after BYTES bytes of its body reach the
                    API: both connections are closed mid-request.
--cut-events K      the first event stream is cut after K events reach the client.
"""
import json
import socket
import sys
import threading
import time

upstream_port, state_file = int(sys.argv[1]), sys.argv[2]
cut_put = None
cut_events = None
args = sys.argv[3:]
while args:
    flag, value = args[0], args[1]
    args = args[2:]
    if flag == "--cut-put":
        n, count = value.split(":")
        cut_put = (int(n), int(count))
    elif flag == "--cut-events":
        cut_events = int(value)
    else:
        sys.exit(f"unknown flag {flag}")

lock = threading.Lock()
state = {"putBodyBytes": 0, "putRanges": [], "lastEventIDs": [], "cuts": [], "puts": 0, "eventStreams": 0}


def save():
    with open(state_file + ".tmp", "w") as f:
        json.dump(state, f)
    import os
    os.replace(state_file + ".tmp", state_file)


def read_head(sock, buffer):
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        if not data:
            return None, buffer
        buffer += data
    end = buffer.index(b"\r\n\r\n") + 4
    return buffer[:end], buffer[end:]


def close(*sockets):
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


def serve(client):
    server = socket.create_connection(("127.0.0.1", upstream_port))
    events = {"stream": False, "first": False, "seen": 0, "cut": False}

    def responses():
        try:
            while True:
                data = server.recv(65536)
                if not data:
                    break
                if events["stream"] and cut_events is not None and not events["cut"] and events["first"]:
                    # Forward event by event (each ends with a blank line); drop after the Kth.
                    pending = data
                    while pending:
                        end = pending.find(b"\n\n")
                        if end < 0:
                            client.sendall(pending)
                            break
                        client.sendall(pending[:end + 2])
                        pending = pending[end + 2:]
                        events["seen"] += 1
                        if events["seen"] == cut_events:
                            events["cut"] = True
                            with lock:
                                state["cuts"].append("events")
                                save()
                            close(client, server)
                            return
                    continue
                if data.startswith(b"HTTP/1.1"):
                    status_line = data.split(b"\r\n")[0].decode()
                    print(f"{time.time():.3f} answer {status_line}", flush=True)
                client.sendall(data)
        except OSError:
            pass
        close(client, server)

    threading.Thread(target=responses, daemon=True).start()
    buffer = b""
    try:
        while True:
            head, buffer = read_head(client, buffer)
            if head is None:
                break
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
            length = int(headers.get("content-length", "0"))
            events["stream"] = method == "GET" and path.split("?")[0].endswith("/events")
            with lock:
                if events["stream"]:
                    state["eventStreams"] += 1
                    events["first"] = state["eventStreams"] == 1
                    state["lastEventIDs"].append(headers.get("last-event-id"))
                if method == "PUT":
                    state["puts"] += 1
                    state["putRanges"].append(headers.get("content-range"))
                number = state["puts"]
                save()
            print(f"{time.time():.3f} {method} {path} {headers.get('content-range')} length {length}", flush=True)
            server.sendall(head)
            limit = cut_put[1] if cut_put and method == "PUT" and number == cut_put[0] else None
            sent = 0
            while sent < length:
                if not buffer:
                    buffer = client.recv(65536)
                    if not buffer:
                        raise OSError("client closed")
                piece = buffer[:length - sent]
                if limit is not None and sent + len(piece) >= limit:
                    piece = piece[:limit - sent]
                    server.sendall(piece)
                    with lock:
                        state["putBodyBytes"] += len(piece)
                        state["cuts"].append("put")
                        save()
                    close(client, server)
                    return
                server.sendall(piece)
                buffer = buffer[len(piece):]
                sent += len(piece)
                if method == "PUT":
                    with lock:
                        state["putBodyBytes"] += len(piece)
            with lock:
                save()
    except OSError:
        pass
    close(client, server)


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
state["port"] = listener.getsockname()[1]
save()
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()

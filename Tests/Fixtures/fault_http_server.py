#!/usr/bin/env python3
"""A small HTTP/1.1 server for catalog refresh tests that misbehaves on request.

It prints "PORT <n>" once listening, then reads one JSON command per line on standard input and answers
each with one JSON line on standard output:

  {"op": "put", "path": "/feed.xml", "body": "...", "etag": "\"v1\"", "lastModified": "...",
   "contentType": "application/rss+xml"}          serve this resource (304 on a matching validator)
  {"op": "faults", "path": "/feed.xml", "faults": [{"kind": "reset"}, ...]}
                                                    the next requests to the path misbehave, one fault each:
      stall (seconds): accept and say nothing        reset: close with RST before answering
      status (code): answer with that status         truncate: declare the full length, send half, close
      drip (seconds, chunk): send the body slowly    redirect (to): 302 to another path
      endless (chunk): 200 with no length, then the chunk again and again until the client goes
      length (bytes): declare that Content-Length, then send the body again and again until the client goes
  {"op": "put", "path": ..., "generate": {"head": "...", "item": "...{n}...", "count": 1000000, "tail": "..."}}
                                                    serve a body built here (too large to pass as a command)
  {"op": "log"}                                     the requests so far: path, headers, status answered
  {"op": "quit"}
"""
import base64
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler

from fixture_control import serve

lock = threading.Lock()
resources = {}
faults = {}
log = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, status):
        with lock:
            log.append({"path": self.path, "headers": {k: v for k, v in self.headers.items()}, "status": status})

    def do_GET(self):
        with lock:
            queue = faults.get(self.path) or []
            fault = queue.pop(0) if queue else None
            resource = resources.get(self.path)
        kind = fault["kind"] if fault else None
        if kind == "stall":
            self.record(0)
            time.sleep(fault.get("seconds", 30))
            self.close_connection = True
            return
        if kind == "reset":
            self.record(0)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if kind == "status":
            self.answer(fault.get("code", 500), b"server error\n", {"Content-Type": "text/plain"})
            return
        if kind == "redirect":
            self.answer(302, b"", {"Location": fault["to"]})
            return
        if kind in ("endless", "length"):
            self.record(200)
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            if kind == "length":
                self.send_header("Content-Length", str(fault["bytes"]))
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = (fault.get("chunk") or "<item><title>again</title></item>\n").encode("utf-8") * 256
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if resource is None:
            self.answer(404, b"not found\n", {"Content-Type": "text/plain"})
            return
        if "bodyBase64" in resource:
            body = base64.b64decode(resource["bodyBase64"])
        else:
            body = resource["body"].encode("utf-8")
        # Ranges are not supported: saying so keeps media players from seeking (to read a duration).
        headers = {"Content-Type": resource.get("contentType", "application/octet-stream"), "Accept-Ranges": "none"}
        if resource.get("etag"):
            headers["ETag"] = resource["etag"]
        if resource.get("lastModified"):
            headers["Last-Modified"] = resource["lastModified"]
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        if (inm and inm == resource.get("etag")) or (not inm and ims and ims == resource.get("lastModified")):
            self.answer(304, b"", headers)
            return
        if kind == "truncate":
            self.record(200)
            self.send_response(200)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if kind == "drip":
            self.record(200)
            self.send_response(200)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            chunk = fault.get("chunk", 16)
            try:
                for start in range(0, len(body), chunk):
                    self.wfile.write(body[start : start + chunk])
                    self.wfile.flush()
                    time.sleep(fault.get("seconds", 0.5))
            except OSError:
                pass
            self.close_connection = True
            return
        self.answer(200, body, headers)

    def answer(self, status, body, headers):
        self.record(status)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)


def apply(op, command):
    if op == "put":
        if "generate" in command:
            spec = command.pop("generate")
            item = spec["item"]
            command["body"] = spec["head"] + "".join(item.replace("{n}", str(n)) for n in range(spec["count"])) + spec["tail"]
        resources[command["path"]] = command
    elif op == "faults":
        faults.setdefault(command["path"], []).extend(command["faults"])


def main():
    serve(Handler, lock, log, apply).shutdown()


if __name__ == "__main__":
    main()

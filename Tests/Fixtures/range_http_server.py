#!/usr/bin/env python3
"""A small HTTP/1.1 media server that answers Range requests and can be made slow, for seek tests.

It prints "PORT <n>" once listening, then reads one JSON command per line on standard input and answers
each with one JSON line on standard output (see fixture_control.py):

  {"op": "file", "path": "/episode.ogg", "file": "/tmp/x/episode.ogg", "contentType": "audio/ogg"}
                                      serve a file from disk, whole (200) or by byte range (206)
  {"op": "put", "path": "/feed.xml", "body": "...", "contentType": "application/rss+xml"}
                                      serve a text body
  {"op": "slow", "path": "/episode.ogg", "seconds": 2.0}
                                      from now on, every request to the path that starts past byte 0 (a seek,
                                      as a player sends it) waits this long before the answer's first byte,
                                      like a server under load; 0 makes it fast again
  {"op": "throttle", "path": "/episode.ogg", "bytesPerSecond": 65536}
                                      from now on, send the path's bodies at about this rate (in 8 KiB
                                      writes), so a client can be stopped mid-body; 0 sends at full speed
  {"op": "log"}                       the requests so far, in order of arrival: path, range, status (0 while
                                      held back), seconds waited
  {"op": "quit"}
"""
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler

from fixture_control import serve

lock = threading.Lock()
resources = {}
delays = {}
rates = {}
log = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.respond(send_body=False)

    def do_GET(self):
        self.respond(send_body=True)

    def respond(self, send_body):
        with lock:
            resource = resources.get(self.path)
            delay = delays.get(self.path, 0)
            rate = rates.get(self.path, 0)
        if resource is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "file" in resource:
            with open(resource["file"], "rb") as handle:
                body = handle.read()
        else:
            body = resource["body"].encode("utf-8")
        total = len(body)
        start, end = 0, total - 1
        ranged = False
        match = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", "").strip())
        if match and (match.group(1) or match.group(2)):
            ranged = True
            if match.group(1):
                start = int(match.group(1))
                if match.group(2):
                    end = min(int(match.group(2)), total - 1)
            else:
                start = max(0, total - int(match.group(2)))
        # Logged on arrival: a ranged answer streams for as long as the player reads, long after a seek.
        entry = {"path": self.path, "range": self.headers.get("Range"), "status": 0, "waited": 0}
        with lock:
            log.append(entry)
        if ranged and start > 0 and delay > 0:
            time.sleep(delay)
            entry["waited"] = delay
        if start >= total:
            status = 416
            self.send_response(status)
            self.send_header("Content-Range", "bytes */%d" % total)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            status = 206 if ranged else 200
            self.send_response(status)
            self.send_header("Content-Type", resource.get("contentType", "application/octet-stream"))
            self.send_header("Accept-Ranges", "bytes")
            if ranged:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, total))
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            if send_body:
                try:
                    if rate > 0:
                        for offset in range(start, end + 1, 8192):
                            self.wfile.write(body[offset : min(offset + 8192, end + 1)])
                            self.wfile.flush()
                            time.sleep(8192 / rate)
                    else:
                        self.wfile.write(body[start : end + 1])
                except OSError:
                    pass
        entry["status"] = status


def apply(op, command):
    if op in ("file", "put"):
        resources[command["path"]] = command
    elif op == "slow":
        delays[command["path"]] = float(command.get("seconds", 0))
    elif op == "throttle":
        rates[command["path"]] = float(command.get("bytesPerSecond", 0))


def main():
    serve(Handler, lock, log, apply).shutdown()


if __name__ == "__main__":
    main()

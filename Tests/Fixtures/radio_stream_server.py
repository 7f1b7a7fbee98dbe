#!/usr/bin/env python3
"""An endless internet-radio stream for live-stream tests, the way Icecast serves one.

GET /<name>.ogg answers 200 with no Content-Length and streams Ogg Vorbis for ever: a sine encoded by a
gst-launch-1.0 child per listener (so every listener starts with the Vorbis headers), sent page by page
at the pace of the audio (each page once the wall clock is within `lead` seconds of its granule position),
as a radio server does after its burst-on-connect. GET /<name>.mp3 does the same with MP3.

When the request says `Icy-MetaData: 1` (souphttpsrc does), the answer carries `icy-metaint` and every
`metaint` bytes of audio are followed by an ICY metadata block: `StreamTitle='...';` when the title
changed since the last block, else a zero length byte.

It prints "PORT <n>" once listening, then reads one JSON command per line on standard input and answers
each with one JSON line:

  {"op": "title", "title": "Artist - Title"}     the StreamTitle from now on (null: none)
  {"op": "log"}                                   the requests so far: path, headers, whether ICY was on
  {"op": "quit"}
"""
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler

from fixture_control import serve

RATE = 44100
METAINT = 4000
LEAD = 2.0

lock = threading.Lock()
state = {"title": None, "version": 0}
log = []
children = set()


def encoder(kind, frequency):
    if kind == "mp3":
        tail = ["lamemp3enc", "target=bitrate", "bitrate=64", "cbr=true", "!"]
    else:
        tail = ["vorbisenc", "quality=0.1", "!", "oggmux", "!"]
    command = ["gst-launch-1.0", "-q", "audiotestsrc", "wave=sine", "freq=%d" % frequency, "volume=0.5", "!",
               "audio/x-raw,rate=%d,channels=2" % RATE, "!"] + tail + ["fdsink", "fd=1"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ogg_pages(stream):
    """Yields (bytes, seconds of audio at the page's end or None) for each Ogg page."""
    while True:
        header = stream.read(27)
        if len(header) < 27 or header[:4] != b"OggS":
            return
        segments = stream.read(header[26])
        body = stream.read(sum(segments))
        granule = int.from_bytes(header[6:14], "little", signed=True)
        yield header + segments + body, (granule / RATE if granule > 0 else None)


def mp3_chunks(stream):
    """Constant-bitrate MP3: 64 kbit/s is 8000 bytes per second of audio."""
    sent = 0
    while True:
        chunk = stream.read(4000)
        if not chunk:
            return
        sent += len(chunk)
        yield chunk, sent / 8000.0


class IcyWriter:
    """Interleaves ICY metadata blocks every METAINT bytes of audio."""

    def __init__(self, out, icy):
        self.out = out
        self.icy = icy
        self.until_meta = METAINT
        # No block until a title is set: version 0 means "no title yet".
        self.sent_version = 0

    def write(self, data):
        if not self.icy:
            self.out.write(data)
            return
        while data:
            part = data[: self.until_meta]
            self.out.write(part)
            data = data[len(part):]
            self.until_meta -= len(part)
            if self.until_meta == 0:
                self.out.write(self.metadata())
                self.until_meta = METAINT

    def metadata(self):
        with lock:
            title, version = state["title"], state["version"]
        if version == self.sent_version:
            return b"\x00"
        self.sent_version = version
        text = ("StreamTitle='%s';" % (title or "")).encode("utf-8")
        blocks = (len(text) + 15) // 16
        return bytes([blocks]) + text + b"\x00" * (blocks * 16 - len(text))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        kind = "mp3" if path.endswith(".mp3") else "ogg" if path.endswith(".ogg") else None
        icy = self.headers.get("Icy-MetaData", "").strip() == "1"
        with lock:
            log.append({"path": self.path, "headers": dict(self.headers.items()), "icy": icy and kind is not None})
        if kind is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg" if kind == "mp3" else "application/ogg")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("icy-name", "Test Radio")
        if icy:
            self.send_header("icy-metaint", str(METAINT))
        self.end_headers()
        child = encoder(kind, 440)
        with lock:
            children.add(child)
        writer = IcyWriter(self.wfile, icy)
        start = time.monotonic()
        chunks = mp3_chunks(child.stdout) if kind == "mp3" else ogg_pages(child.stdout)
        try:
            for data, seconds in chunks:
                if seconds is not None:
                    wait = start + seconds - LEAD - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                writer.write(data)
                self.wfile.flush()
        except OSError:
            pass
        finally:
            child.kill()
            child.wait()
            with lock:
                children.discard(child)
        self.close_connection = True


def apply(op, command):
    if op == "title":
        state["title"] = command.get("title")
        state["version"] += 1


def main():
    serve(Handler, lock, log, apply)
    with lock:
        for child in children:
            child.kill()


if __name__ == "__main__":
    main()

"""The control side shared by the test fixture servers.

A fixture server listens on a free loopback port, prints "PORT <n>" once listening, then reads one JSON
command per line on standard input and answers each with one JSON line on standard output. {"op": "log"}
answers the requests so far and {"op": "quit"} ends it; every other command goes to the server's own
`apply`, under the server's lock.
"""
import json
import sys
import threading
from http.server import ThreadingHTTPServer


def serve(handler_class, lock, log, apply):
    """Runs until {"op": "quit"} or the end of standard input; returns the (still listening) server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        op = command.get("op")
        reply = {"ok": True}
        with lock:
            if op == "quit":
                break
            if op == "log":
                reply["log"] = list(log)
            else:
                apply(op, command)
        print(json.dumps(reply), flush=True)
    return server

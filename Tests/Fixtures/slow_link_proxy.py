"""A TCP link with a delay: what one side sends reaches the other `delay` seconds later, in order, and so
does its end (a FIN is passed on as a half-close). It stands for a slow network between a node and its
broker.

It speaks the fixture servers' protocol (see fixture_control.py): it prints "PORT <n>" once listening, then
answers one JSON command per line: {"op": "upstream", "port": N, "delay": S} sets where new connections go
and the delay; {"op": "quit"} ends it.
"""
import json
import socket
import sys
import threading
import time

settings = {"port": None, "delay": 0.0}
lock = threading.Lock()


def pump(source, target, delay):
    """Copies source to target, each chunk `delay` after it arrived; passes the end on the same way."""
    chunks = []
    ready = threading.Condition()

    def read():
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            with ready:
                chunks.append((time.monotonic() + delay, data))
                ready.notify()
            if not data:
                return

    threading.Thread(target=read, daemon=True).start()
    while True:
        with ready:
            while not chunks:
                ready.wait()
            due, data = chunks.pop(0)
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        try:
            if data:
                target.sendall(data)
            else:
                target.shutdown(socket.SHUT_WR)
                return
        except OSError:
            return


def serve(client):
    with lock:
        port, delay = settings["port"], settings["delay"]
    upstream = socket.create_connection(("127.0.0.1", port))
    for sock in (client, upstream):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    directions = [threading.Thread(target=pump, args=(client, upstream, delay), daemon=True),
                  threading.Thread(target=pump, args=(upstream, client, delay), daemon=True)]
    for direction in directions:
        direction.start()
    for direction in directions:
        direction.join()
    client.close()
    upstream.close()


def accept(listener):
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client,), daemon=True).start()


def main():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    threading.Thread(target=accept, args=(listener,), daemon=True).start()
    print("PORT %d" % listener.getsockname()[1], flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command.get("op") == "quit":
            break
        if command.get("op") == "upstream":
            with lock:
                settings["port"] = int(command["port"])
                settings["delay"] = float(command.get("delay", 0))
        print(json.dumps({"ok": True}), flush=True)


if __name__ == "__main__":
    main()

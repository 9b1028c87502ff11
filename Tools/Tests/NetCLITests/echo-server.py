"""A loopback HTTP server for the `net` CLI tests: an independent peer (Python's http.server and
email parser), started on a free port that it prints as its first line of output.

  /echo...        answers 200 with JSON describing the request it received, multipart parts
                  parsed by Python's email package
  /status/N       answers N with a small JSON body (?size=S: S bytes of "e", as text)
  /bytes/N        answers N deterministic bytes (byte i is i % 251) with Content-Length
  /redirect       answers 302 to /echo
  /redirect-to?location=L   answers 302 to L, as given
  /nested?depth=D&bytes=N   answers about N bytes of JSON: arrays nested D deep, repeated
  /gzip-bomb      answers 64 MiB of zeros as gzip (about 65 KB, Content-Encoding: gzip)
  /sleep/S        answers 200 after S seconds
  /flaky/KEY/N    answers 503 the first N times for KEY, then 200
  /events?dir=D   answers text/event-stream, close-delimited: an event, then waits until the
                  file D/release-1 exists before the next, and so on (three events, then a comment)
  /events/endless answers text/event-stream: an event, then one line that never ends
  /held?dir=D     answers text/plain, close-delimited: "first\n", then "second\n" once the file
                  D/release-1 exists
"""
import email.parser
import gzip
import email.policy
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


FAILURES_SEEN = {}
GZIP_BOMB = []


def gzip_bomb():
    if not GZIP_BOMB:
        GZIP_BOMB.append(gzip.compress(bytes(64 << 20), compresslevel=9))
    return GZIP_BOMB[0]
FAILURES_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json", extra=()):
        if status in (204, 304):  # no body by definition (RFC 9110)
            body = b""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length) if length else b""

    def handle_any(self):
        body = self.read_body()
        path = urlsplit(self.path)
        if path.path.startswith("/status/"):
            status = int(path.path.split("/")[2])
            size = dict(parse_qsl(path.query)).get("size")
            body = b"e" * int(size) if size else json.dumps({"status": status}).encode()
            self.reply(status, body, "text/plain" if size else "application/json")
        elif path.path.startswith("/bytes/"):
            count = int(path.path.split("/")[2])
            self.reply(200, bytes(i % 251 for i in range(count)), "application/octet-stream")
        elif path.path.startswith("/sleep/"):
            time.sleep(float(path.path.split("/")[2]))
            self.reply(200, b"{}")
        elif path.path.startswith("/flaky/"):
            _, _, key, failures = path.path.split("/")
            with FAILURES_LOCK:
                seen = FAILURES_SEEN.get(key, 0)
                FAILURES_SEEN[key] = seen + 1
            status = 503 if seen < int(failures) else 200
            self.reply(status, json.dumps({"attempt": seen + 1}).encode())
        elif path.path == "/redirect":
            self.reply(302, b"", "text/plain", [("Location", "/echo")])
        elif path.path == "/redirect-to":
            location = dict(parse_qsl(path.query)).get("location", "/")
            self.reply(302, b"", "text/plain", [("Location", location)])
        elif path.path == "/gzip-bomb":
            self.reply(200, gzip_bomb(), "application/octet-stream", [("Content-Encoding", "gzip")])
        elif path.path == "/events/endless":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            block = b"x" * 65536
            try:
                self.wfile.write(b"data: first\n\ndata: ")
                while True:
                    self.wfile.write(block)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif path.path == "/events":
            events = [b"data: hello\n\n", b'event: update\nid: 7\ndata: a\ndata: "b"\n\n', "data: caf\u00e9\r\n\r\n: bye\n".encode()]
            self.released_parts(dict(parse_qsl(path.query))["dir"], "text/event-stream", events)
        elif path.path == "/held":
            self.released_parts(dict(parse_qsl(path.query))["dir"], "text/plain", [b"first\n", b"second\n"])
        elif path.path == "/nested":
            query = dict(parse_qsl(path.query))
            depth, size = int(query.get("depth", "500")), int(query.get("bytes", "2000000"))
            unit = "[" * depth + "]" * depth
            self.reply(200, ("[" + ",".join([unit] * max(1, size // (len(unit) + 1))) + "]").encode())
        else:
            self.reply(200, json.dumps(self.describe(path, body)).encode())

    def released_parts(self, directory, content_type, parts):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for index, part in enumerate(parts):
            if index > 0:
                # Waits for the test's signal that the previous part reached net's output.
                # (Or until the directory is gone: a test that failed has cleaned up.)
                while not os.path.exists(os.path.join(directory, "release-%d" % index)) and os.path.isdir(directory):
                    time.sleep(0.005)
            self.wfile.write(part)
            self.wfile.flush()

    def describe(self, path, body):
        description = {
            "method": self.command,
            "path": path.path,
            "query": path.query,
            "headers": [[name, value] for name, value in self.headers.items()],
            "bodyLength": len(body),
            "bodySHA256": hashlib.sha256(body).hexdigest(),
        }
        try:
            description["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            pass
        content_type = self.headers.get("Content-Type", "")
        if content_type.startswith("multipart/"):
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
            description["parts"] = [{
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_filename(),
                "contentType": part.get_content_type() if part.get("Content-Type") else None,
                "length": len(part.get_payload(decode=True)),
                "sha256": hashlib.sha256(part.get_payload(decode=True)).hexdigest(),
            } for part in message.iter_parts()]
        return description

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


def exit_with_parent():
    """The tests hold our standard input open; when they exit, it reads end of file."""
    sys.stdin.buffer.read()
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()

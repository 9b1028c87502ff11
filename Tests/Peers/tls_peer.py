"""An HTTPS peer for Net's TLS tests, on Python's `ssl` module (OpenSSL), so certificates and
client certificates are checked by an implementation that is not Net's or SwiftNIO's.

    tls_peer.py CERT KEY [--client-ca PEM] [--max-tls 1.2]

Prints its port on the first line of standard output, then serves on 127.0.0.1 until its parent
process is gone. A GET answers 200 with the body `tls ok` and, when the client presented a
certificate, the header `X-Client-Subject` with its common name; `/bytes/N` answers N bytes
(byte i is i % 251); `/requests` answers how many requests came before it. With `--client-ca` a client
certificate chaining to that CA is required; with `--max-tls 1.2` TLS 1.3 is refused.
"""
import ssl, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from peer_lifetime import exit_with_parent


served = 0
served_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global served
        with served_lock:
            before = served
            served += 1
        body = b"tls ok"
        if self.path.startswith("/bytes/"):
            body = bytes(i % 251 for i in range(int(self.path[len("/bytes/"):])))
        elif self.path == "/requests":
            body = str(before).encode()
        self.send_response(200)
        peer = self.connection.getpeercert()
        if peer:
            subject = dict(part[0] for part in peer.get("subject", ()))
            self.send_header("X-Client-Subject", subject.get("commonName", ""))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    args = sys.argv[1:]
    cert, key = args[0], args[1]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    if "--client-ca" in args:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(args[args.index("--client-ca") + 1])
    if "--max-tls" in args and args[args.index("--max-tls") + 1] == "1.2":
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    exit_with_parent()
    server.serve_forever()


main()

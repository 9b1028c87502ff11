"""An HTTPS peer that answers HTTP/2 with a response status no HTTP/1 parser would take.

    h2_status_peer.py CERT KEY STATUS

Offers ALPN `h2` and `http/1.1`. On HTTP/2 it answers every request with a HEADERS frame whose
`:status` is STATUS as given (for example `-1`), so a client's HTTP/2 stack meets it; on
HTTP/1.1 it answers `200` with the body `h1 ok`. Prints its port on the first line of standard
output, then serves on 127.0.0.1 until its parent process is gone. Minimal HTTP/2 by hand (no
Huffman coding, no flow control beyond what one small response needs), so no package is needed.
"""
import socket, ssl, struct, sys, threading
from peer_lifetime import exit_with_parent

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x4, 0x6, 0x7
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """A header field as an HPACK literal without indexing, new name, no Huffman coding."""
    name, value = name.encode(), value.encode()
    assert len(name) < 127 and len(value) < 127
    return bytes([0x00, len(name)]) + name + bytes([len(value)]) + value


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def serve_h2(connection, status):
    if read_exactly(connection, len(PREFACE)) != PREFACE:
        return
    connection.sendall(frame(SETTINGS, 0, 0))
    while True:
        head = read_exactly(connection, 9)
        length = int.from_bytes(head[:3], "big")
        kind, flags = head[3], head[4]
        stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        read_exactly(connection, length)
        if kind == SETTINGS and not flags & ACK:
            connection.sendall(frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            connection.sendall(frame(PING, ACK, 0, b"\0" * 8))
        elif kind == HEADERS:
            block = literal(":status", status) + literal("content-length", "0")
            connection.sendall(frame(HEADERS, END_HEADERS | END_STREAM, stream, block))
        elif kind == GOAWAY:
            return


def serve_h1(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return
        data += chunk
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nh1 ok")


def serve(raw, context, status):
    try:
        with context.wrap_socket(raw, server_side=True) as connection:
            if connection.selected_alpn_protocol() == "h2":
                serve_h2(connection, status)
            else:
                serve_h1(connection)
    except (OSError, EOFError, ssl.SSLError):
        pass


def main():
    certificate, key, status = sys.argv[1], sys.argv[2], sys.argv[3]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["h2", "http/1.1"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    exit_with_parent()
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=serve, args=(raw, context, status), daemon=True).start()


main()

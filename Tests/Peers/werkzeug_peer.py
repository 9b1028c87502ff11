"""An HTTP peer for Net's tests, built on Werkzeug (the WSGI toolkit behind Flask), so range
requests, conditional requests and cookies are answered by an implementation that is not Net's.

Prints its port on the first line of standard output, then serves on 127.0.0.1 until its parent
process is gone.

Routes:
- GET /file/NAME?size=N&validator=etag|weak|date|recentdate|none&cuts=C1,C2: N deterministic bytes that
  depend on NAME and its version. Ranges and If-Range are Werkzeug's own
  (Response.make_conditional). A response is cut (the connection shut down) when it reaches
  the first absolute byte position Ci beyond where it starts: stateless, so a resumed request is
  cut at the next point.
- POST /bump/NAME: a new version of NAME (new bytes, new ETag, new Last-Modified).
- GET /content/NAME?size=N: the bytes of the current version, whole, for comparison.
- GET /log/NAME: the requests for /file/NAME so far: Range, If-Range, Accept-Encoding, status.
- GET /cookies/set?NAME=VALUE&attributes=...: sets one cookie per query item except
  `attributes`, whose value is appended to each Set-Cookie verbatim.
- GET /cookies/redirect?to=PATH&NAME=VALUE: a 302 to PATH that sets the cookies, as /cookies/set.
- GET /cookies/echo: the Cookie header received, as JSON.
"""
import hashlib, json, socket, sys, threading, time
from email.utils import formatdate
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response
from peer_lifetime import exit_with_parent

versions = {}
logs = {}
lock = threading.Lock()


def content(name, size):
    version = versions.get(name, 0)
    out = bytearray()
    block = 0
    while len(out) < size:
        out += hashlib.sha256(f"{name}:{version}:{block}".encode()).digest()
        block += 1
    return bytes(out[:size])


def cut_iterable(body, start, cut, sock):
    """Yields body (which starts at absolute position `start`), shutting the connection down
    once absolute position `cut` is reached."""
    remaining = cut - start
    for chunk in body:
        if len(chunk) < remaining:
            remaining -= len(chunk)
            yield chunk
            continue
        yield chunk[:remaining]
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise ConnectionResetError("cut by the test peer")


def file_route(request, name):
    size = int(request.args.get("size", "1048576"))
    validator = request.args.get("validator", "etag")
    cuts = [int(c) for c in request.args.get("cuts", "").split(",") if c]
    with lock:
        data = content(name, size)
        version = versions.get(name, 0)
    response = Response(data, mimetype="application/octet-stream", direct_passthrough=False)
    if validator in ("etag", "weak"):
        response.set_etag(f"{name}-v{version}", weak=(validator == "weak"))
    if validator in ("date", "etag", "weak"):
        response.headers["Last-Modified"] = formatdate(1_700_000_000 + version * 86_400, usegmt=True)
    if validator == "none":
        response.headers.pop("Last-Modified", None)
    if validator == "recentdate":  # modified as it is served: a weak date (RFC 9110 §8.8.2.2)
        response.headers["Last-Modified"] = formatdate(time.time(), usegmt=True)
    response = response.make_conditional(request, accept_ranges=True, complete_length=size)
    start = 0
    if response.status_code == 206 and response.content_range is not None:
        start = response.content_range.start
    with lock:
        logs.setdefault(name, []).append({
            "range": request.headers.get("Range"), "ifRange": request.headers.get("If-Range"),
            "acceptEncoding": request.headers.get("Accept-Encoding"), "status": response.status_code})
    upcoming = [c for c in cuts if c > start]
    if upcoming and response.status_code in (200, 206):
        body = response.get_data()
        response.response = cut_iterable([body[i:i + 16384] for i in range(0, len(body), 16384)], start, upcoming[0],
                                          request.environ["werkzeug.socket"])
        response.direct_passthrough = True
    return response


@Request.application
def app(request):
    parts = request.path.strip("/").split("/", 1)
    route, name = parts[0], (parts[1] if len(parts) > 1 else "")
    if route == "file":
        return file_route(request, name)
    if route == "bump" and request.method == "POST":
        with lock:
            versions[name] = versions.get(name, 0) + 1
        return Response("bumped")
    if route == "content":
        with lock:
            return Response(content(name, int(request.args.get("size", "1048576"))), mimetype="application/octet-stream")
    if route == "log":
        with lock:
            return Response(json.dumps(logs.get(name, [])), mimetype="application/json")
    if route == "cookies" and name in ("set", "redirect"):
        response = Response("set")
        if name == "redirect":
            response = Response("", status=302, headers={"Location": request.args.get("to", "/")})
        attributes = request.args.get("attributes", "")
        for key, value in request.args.items(multi=True):
            if key not in ("attributes", "to"):
                response.headers.add("Set-Cookie", f"{key}={value}" + (f"; {attributes}" if attributes else ""))
        return response
    if route == "cookies" and name == "echo":
        return Response(json.dumps({"cookie": request.headers.get("Cookie")}), mimetype="application/json")
    return Response("not found", status=404)


def main():
    server = make_server("127.0.0.1", 0, app, threaded=True)
    print(server.server_port, flush=True)
    exit_with_parent()
    server.serve_forever()


if __name__ == "__main__":
    main()

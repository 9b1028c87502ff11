import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// TLS verification is on by default: a server whose certificate no trusted authority signed is
/// refused with a typed TLS error, the request never reaches it, and curl rendering never adds `-k`.
@Suite("TLS: certificates are verified unless the caller says otherwise")
struct TLSVerificationTests {
    /// A self-signed certificate and key for 127.0.0.1, made for this test alone (100 years valid;
    /// `openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1`). Not a secret: it protects nothing.
    static let certificate = """
-----BEGIN CERTIFICATE-----
MIIDJzCCAg+gAwIBAgIUUdmfUa8MaZylfqQJV4CQV6iudrgwDQYJKoZIhvcNAQEL
BQAwFDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMTExMTUwM1oYDzIxMjYx
MDI4MTExNTAzWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQDiU7bTmhfmHE4BDqkjfnMWdFeBCTgPR1bbm4gjdd82
lcpIf+mxdUjnJ1eEBzi0h/D53fP7jGTVm9iKzdDv4Muib2DpN8ukH8UxaoNxNKdY
2GJ4rL3zs+P6L7A3eZscqgevoGIKGqd30z7AQ0ZNfpq2Tny34Z0TonB1ox+5LAqa
sxx11CSZjF5XSmTHaZnQ/f3I4/RFjIFZGw0YyE6A9gGoMnP2RbegT7a38LXH2nwF
CFnaZ1UF0TTVPEX9eMf8EhVhiY0ImdXxFAo01sphNodj5DK8/O4A3ruyMvLakB2V
/dxuHbTr8c+CvrrO78WS/tsPhJyJCOxKbmP5b+5/I7S3AgMBAAGjbzBtMB0GA1Ud
DgQWBBQljDmOy34u2pLGtcKlIB5jUZkpPTAfBgNVHSMEGDAWgBQljDmOy34u2pLG
tcKlIB5jUZkpPTAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxv
Y2FsaG9zdDANBgkqhkiG9w0BAQsFAAOCAQEAxSh1J6SDMlz6+3WWLhRSOeXXqGMV
GPhyflUW5Mx8GjcprCIAhXQ4SLR+rrwIabngUy1EDmzZg6K1a+r+r8ymTnjlCwh+
2rHWpExqjFGEGFuElfcjoHVktbm5EGtqsDPC6OOr+6xxhU/uHYyLXkoWiZChnRBw
FJT/BwdWf2wtVPnNxe2IGF15C4XIVQaGMh1f599k78Vix00/TCs4h0n82GwIgwd1
6HPcYRGoCg3U6RmTlZh0uRZ6eq3ld7dBBAuUnE6SiHMCY6EttIm5PTb8fYGHKARx
GKnVb4HuVlQCzUNp+ZKgTj2CVlt0Pg7sNoF9PBTOewitkO2gWjUzk+egfA==
-----END CERTIFICATE-----
"""
    static let privateKey = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDiU7bTmhfmHE4B
DqkjfnMWdFeBCTgPR1bbm4gjdd82lcpIf+mxdUjnJ1eEBzi0h/D53fP7jGTVm9iK
zdDv4Muib2DpN8ukH8UxaoNxNKdY2GJ4rL3zs+P6L7A3eZscqgevoGIKGqd30z7A
Q0ZNfpq2Tny34Z0TonB1ox+5LAqasxx11CSZjF5XSmTHaZnQ/f3I4/RFjIFZGw0Y
yE6A9gGoMnP2RbegT7a38LXH2nwFCFnaZ1UF0TTVPEX9eMf8EhVhiY0ImdXxFAo0
1sphNodj5DK8/O4A3ruyMvLakB2V/dxuHbTr8c+CvrrO78WS/tsPhJyJCOxKbmP5
b+5/I7S3AgMBAAECggEANt6lzeInVh3ZmW8E+XpwC2sURc/G3AlnGOG5nSM4BONG
wdHlBaVSEdxbXsJjcH0eom05d+w/C/x3AJvKQkWlCNHo1FG3GKitJYBVso3Z3nPD
V89FU/5yUFbcaW6deNMN/vmqmxmALVA0/+avdh0yA+2+VdQoQTjZ++Maz0lKnttF
uyR1+6wdkWvzuP37hPYhcibHeCbuxOxo6YrmZnBdA+zJhhyKUmIuTyQA/A+q299E
DSsVkY9F2uTI3g7QgcyX/LKyETzKQC9hjKvPYE0GDmn8BuPytUwTtc9hCfCgRQ6Q
olM15suDb+hCT/D76hWaSCZyA3+etKE11iEnklgsKQKBgQD8m399mMvCaHbHQvjp
VMl/i8c98orNhoKZJyKLuPx3TuvyxQRMxo1JkQUj9Kh+mdYJy1EWgMKX+8IEsuUs
+MvpGtf3bkeGSAVaNd8vvD37O2Gaizwsn8CMGKtwFkRPlK2+JsknzJdjHeGPSuSR
4sOdIJ8Q+w4TQWt8+oURTnH7zwKBgQDlXdw2BX7wi8SauQcCPWOO/76x8VwX9nmF
HMJJ4I7QOyosCmZU6jv3XbaItmJR60FEIww+I4gwdaKzYopplBb1mCupsidlc+Bs
4zEfyVaCMZzoJUAOk9GUePT41ytDOBK+Vv5xjeSVHnt6SReaRjI6sMe3+iGkk+Bb
rvn7btfqmQKBgQCcCOlNia6DXcfQ+fuLFcaJtKvUBhfbMHVHaTcbm57Hi8aPZUds
rVDk2mGUfjH+UcQ2tJJYFh0diHOmN2L8zooWaXBx9HrV5XL48EH22I5ou5tkvRDk
d6GWaD6ts/NqPOq9hHPI08XHgdOskZRy0OIIEvhuosVk+4oL3yuHLy+VXQKBgFQ4
IqOzYOjyaT5msiwgXm4jeeHcvfQOjJBT/wMhcU8EanfBWdHUMDCkOGH6lh9+QnjC
ZbxrT5Z7m0JC7I/X0JZdSasFv3GBGubghSkmxJ0JmpOjGeJAZLQftdOpLjmAXWGG
j+ciMsyOZMiCDiiXndnvD2Z+cdv8cGU52pB4ItABAoGBAJlwK5TR4Gi0hSV4im7G
2yVCM1RTYkurk5ONJxK/YtKYcM8pdbYyANoQLP4pJyJpEILpD+v7qB3HB4MI7Bdt
vHq0+xFK9xokX0JgACE1wMvzoSBWouoCVVUDE+ec8/6qkCB5JFj2eWut8QhJ4Kvz
h9v+XZkpgtNJkpI8nOJEScdD
-----END PRIVATE KEY-----
"""

    /// Python's `ssl` module serving HTTPS on a free port; writes the port to a file once listening
    /// and a line to another file for every request that reaches it.
    static let server = """
        import http.server, os, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                open(sys.argv[4], "a").write("reached")
                self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
            def log_message(self, *args): pass
        httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        open(sys.argv[3] + ".new", "w").write(str(httpd.server_address[1]))
        os.replace(sys.argv[3] + ".new", sys.argv[3])  # whole, never read half written
        httpd.serve_forever()
        """

    @Test("a self-signed server is refused with NetworkError.transport(.tls), and never sees the request")
    func selfSignedIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = ["cert.pem", "key.pem", "port", "hits"].map { directory.appendingPathComponent($0).path }
        try Self.certificate.write(toFile: paths[0], atomically: true, encoding: .utf8)
        try Self.privateKey.write(toFile: paths[1], atomically: true, encoding: .utf8)
        let process = try Subprocess("/usr/bin/env", ["python3", "-c", Self.server] + paths)
        // The port file appears once the server listens (bounded to catch one that never starts,
        // however slowly a busy machine starts Python).
        var port = ""
        let listening = await eventually(within: TestTiming.hangGuard, every: .milliseconds(20)) {
            port = (try? String(contentsOfFile: paths[2], encoding: .utf8)) ?? ""
            return !port.isEmpty
        }
        try #require(listening, "the HTTPS server did not start: \(process.standardError)")
        // The deadline only catches a hang: a full run's other URLSession load (1,000 concurrent
        // requests) once held this handshake past 10 s.
        let request = try NetworkRequest(url: "https://127.0.0.1:\(port)/", timeout: TestTiming.hangGuard)
        await #expect {
            _ = try await URLSessionTransport().send(request)
        } throws: { error in
            guard case NetworkError.transport(.tls) = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: paths[3]), "the request reached the untrusted server")
        #expect(!request.curl.contains(" -k"))
        #expect(request.curlCommand(CurlOptions(allowsInsecureTLS: true)).arguments.contains("-k"))
    }
}

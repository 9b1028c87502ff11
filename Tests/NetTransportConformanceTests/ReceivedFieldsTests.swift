#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetAsyncHTTPClient
import NetCore
import NIOHTTP1
import Testing

/// A response head's fields as AsyncHTTPClientTransport keeps them: an HTTP/1 head's, parsed
/// strictly by SwiftNIO, checked again only where a value ends in a space or tab; an HTTP/2
/// head's checked whole (the fault suite sends the HTTP/1 cases over the wire).
@Suite struct ReceivedFieldsTests {
    @Test("HTTP/1: a value ending in spaces or tabs is trimmed; one with a tab inside is kept as it is")
    func http1TrimsTheEnd() {
        let fields = HTTPHeaders([("X-End", "v \t"), ("X-Inner", "a\tb"), ("X-Empty", ""), ("X-Plain", "ok")])
        let headers = ReceivedFields.headers(fields, version: .http1_1)
        #expect(headers["X-End"] == "v")
        #expect(headers["X-Inner"] == "a\tb")
        #expect(headers["X-Empty"] == "")
        #expect(headers["X-Plain"] == "ok")
        #expect(headers.count == 4)
    }

    @Test("HTTP/2: every field is checked: a control becomes a space, spaces around a value go, a name that is not a token is dropped")
    func http2ChecksEveryField() {
        let fields = HTTPHeaders([("x-ctl", "a\u{01}b"), ("x-pad", " v "), ("x@bad", "v"), ("x-ok", "ok")])
        let headers = ReceivedFields.headers(fields, version: .http2)
        #expect(headers["x-ctl"] == "a b")
        #expect(headers["x-pad"] == "v")
        #expect(!headers.contains { $0.name == "x@bad" })
        #expect(headers["x-ok"] == "ok")
    }
}
#endif

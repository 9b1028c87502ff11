#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetCore
import NIOHTTP1

/// A response head's fields, from AsyncHTTPClient's to Net's.
package enum ReceivedFields {
    /// The fields of a response head as Net keeps them (``NetworkHeaders``: token names, values
    /// without controls other than tab and without surrounding spaces or tabs).
    ///
    /// An HTTP/1 head comes from SwiftNIO's parser (llhttp, strict, as AsyncHTTPClient runs it: no
    /// leniency set), which refuses the whole response for a name that is not a token or a value
    /// holding a control other than tab, or DEL, and drops the spaces and tabs before a value:
    /// only spaces and tabs after one can remain, and only such a field is checked again
    /// (scanning every field cost about 1,200 instructions a call; Benchmarks/NOTEBOOK.md, "Fewer
    /// async frames"; the transport fault suite sends both kinds). An HTTP/2 head, whose rules
    /// are looser (NUL, CR and LF only), is checked whole.
    ///
    /// Read in swift-nio 2.101.3 (llhttp 9.3.0) and AsyncHTTPClient 1.37.0: a version of either
    /// that set a leniency flag would break this, which the fault suite's header checks would
    /// show; run them when either is updated.
    package static func headers(_ fields: HTTPHeaders, version: HTTPVersion) -> NetworkHeaders {
        var headers = NetworkHeaders()
        headers.reserveCapacity(fields.count)
        guard version.major == 1 else {
            for (name, value) in fields { headers.addReceived(name: name, value: value) }
            return headers
        }
        for (name, value) in fields {
            if let last = value.utf8.last, last == 0x20 || last == 0x09 {
                headers.addReceived(name: name, value: value)
            } else {
                headers.appendPrevalidated(name: name, value: value)
            }
        }
        return headers
    }
}
#endif

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore
import NIOHTTP1

/// Building and starting AsyncHTTPClient's request for an exchange (see `execute` for which API
/// takes it).
extension AsyncHTTPClientTransport {
    /// A request on its way: for the async API, still to be executed; on the delegate API, started.
    enum Outgoing {
        /// Boxed: an `HTTPClientRequest` (with its optional TLS configuration) is several hundred
        /// bytes, which would sit in `start`'s async frame (`execute` is inlined there) for every
        /// request.
        case streamed(PendingRequest)
        case delegated(ExchangeDelegate)
    }

    /// A request for the async API, not yet executed.
    final class PendingRequest: Sendable {
        let request: HTTPClientRequest

        init(_ request: HTTPClientRequest) {
            self.request = request
        }
    }

    /// Builds AsyncHTTPClient's request for `request` (see `execute` for which API takes it), and
    /// on the delegate API starts it.
    @inline(never)  // inlined into the async `execute`, its temporaries would live in the task's frame
    static func outgoing(_ request: NetworkRequest, on client: HTTPClient, via relay: OriginRelay?,
                         progress: TransportProgressHandler?, record: ExchangeMetricsRecorder?,
                         affinity: LoopAffinity) throws -> Outgoing {
        var url = request.url
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        if let relay {
            // Plain HTTP to the relay's socket, which holds the pinned TLS connection.
            url = URL(httpURLWithSocketPath: relay.socketPath, uri: target(of: request.url)) ?? url
            if !headers.contains(name: "Host") { headers.add(name: "Host", value: authority(of: request.url)) }
        }
        // The API and loop (`nil`: the async API), counted from here until the exchange ends: by
        // the body's end or `ExchangeDelegate.end`, or below if it never starts. A body read as it
        // arrives goes on the delegate API only on the home loop; a download to a file never
        // does (see `execute`).
        let counted: LoopAffinity.Counted
        let preference: HTTPClient.EventLoopPreference?
        let homeLoop: (any EventLoop)?
        if readsWholeOnDelegateAPI(request) {
            homeLoop = affinity.starting()
            (counted, preference) = (.readWhole, homeLoop.map { .delegate(on: $0) } ?? .indifferent)
        } else if request.responseBodyUse == .streamed && UploadChunks.sentWhole(request.body) {
            homeLoop = affinity.startingStream()
            (counted, preference) = (.other, homeLoop.map { .delegate(on: $0) })
        } else {
            affinity.startingOnAsyncAPI()
            (counted, preference, homeLoop) = (.other, nil, nil)
        }
        do {
            let upload = try UploadChunks.body(for: request.body, whole: preference != nil, progress: progress,
                                               record: record, loops: client.eventLoopGroup)
            guard let preference else {
                var outgoing = HTTPClientRequest(url: url.absoluteString)
                outgoing.method = HTTPMethod(rawValue: request.httpMethod.rawValue)
                outgoing.headers = headers
                outgoing.body = upload.streamed
                return .streamed(PendingRequest(outgoing))
            }
            let outgoing = try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: request.httpMethod.rawValue),
                                                  headers: headers, body: upload.whole)
            let exchange = ExchangeDelegate(record: record, sentWhole: upload.sentWhole, affinity: affinity, counted: counted)
            // Sent from the home loop itself: called off it, AsyncHTTPClient hands the request to the
            // loop in three pieces (the task's completion, the pool's idle timer, the connection's
            // write), each waking the loop's thread if it is asleep, as it is between calls made
            // one after another; on the loop they run inline, for one wake-up instead of three.
            // The loop is the shared singleton group's, never shut down (`ProxyRoutedClients`), so
            // the send is never dropped; a call given up before it runs is not sent (`start`).
            // The closure only for the hop: a call beside others (64 in flight) allocates none.
            if let homeLoop, !homeLoop.inEventLoop {
                homeLoop.execute { send(outgoing, on: client, through: exchange, preference: preference) }
            } else {
                send(outgoing, on: client, through: exchange, preference: preference)
            }
            return .delegated(exchange)
        } catch {
            affinity.ended(counted)
            throw error
        }
    }

    /// Starts `outgoing` on the delegate API through `exchange`, unless its caller gave up first.
    /// No deadline: the pipeline's cancels the request. AsyncHTTPClient's would cover the whole
    /// exchange here (unlike its async API's, which ends at the head), but it schedules a task on
    /// the event loop for every request, a hand-off to the loop the pipeline's deadline does not
    /// make (its scheduler's one thread wakes only for the earliest deadline).
    private static func send(_ outgoing: HTTPClient.Request, on client: HTTPClient, through exchange: ExchangeDelegate,
                             preference: HTTPClient.EventLoopPreference) {
        exchange.start { client.execute(request: outgoing, delegate: exchange, eventLoop: preference, deadline: nil) }
    }
}
#endif

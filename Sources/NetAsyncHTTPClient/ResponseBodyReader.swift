#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore

/// Reads a response body into memory or a file, reporting download progress and checking that a
/// body without content coding is as long as its `Content-Length`.
enum ResponseBodyReader {
    static func read(_ body: HTTPClientResponse.Body, head: NetworkResponseHead, method: NetworkHttpMethod, to destination: TransportBodyDestination, limits: ResponseLimits, progress: TransportProgressHandler?) async throws -> TransportResponse {
        let expected = head.headers["Content-Encoding"] == nil ? head.expectedContentLength : nil
        var received: Int64 = 0
        switch destination {
        case .memory:
            var data = Data()
            if let expected, expected <= 64 << 20 { data.reserveCapacity(Int(expected)) }
            for try await chunk in body {
                // The decompression limits are SwiftNIO's (configured on the client); the
                // in-memory limit is checked here, before the bytes are kept.
                if let limit = limits.exceeded(decoded: received + Int64(chunk.readableBytes), inMemory: true, declaredCompressedLength: nil, isCompressed: false) {
                    throw NetworkError.transport(.responseBodyLimitExceeded(limit))
                }
                chunk.withUnsafeReadableBytes { data.append(contentsOf: $0) }
                received += Int64(chunk.readableBytes)
                progress?(NetworkProgress(direction: .download, completedBytes: received, expectedBytes: expected))
            }
            try checkLength(received: received, head: head, method: method)
            return TransportResponse(head: head, body: data)
        case .file(let url):
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = try? FileHandle(forWritingTo: url)
            else {
                throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "the file cannot be created"))
            }
            do {
                defer { try? handle.close() }
                for try await chunk in body {
                    do {
                        try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
                    } catch {
                        throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
                    }
                    received += Int64(chunk.readableBytes)
                    progress?(NetworkProgress(direction: .download, completedBytes: received, expectedBytes: expected))
                }
                try checkLength(received: received, head: head, method: method)
            } catch {
                try? FileManager.default.removeItem(at: url)  // nothing is left at the destination on failure
                throw error
            }
            return TransportResponse(head: head, fileURL: url, bodyByteCount: received)
        }
    }

    private static func checkLength(received: Int64, head: NetworkResponseHead, method: NetworkHttpMethod) throws {
        guard method != .head, head.statusCode != 204, head.statusCode != 304,
            head.headers["Content-Encoding"] == nil,
            let expected = head.expectedContentLength, received < expected
        else { return }
        throw NetworkError.transport(.connectionLost("the body ended after \(received) of \(expected) bytes from \(NetworkRedaction.redactedURL(head.url))"))
    }
}
#endif

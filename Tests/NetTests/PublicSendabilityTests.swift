import Foundation
import Net
import Testing

/// README's promise that every public type is `Sendable`, the iterators and
/// `NetworkBodyStream.Reader` aside, as each belongs to the task that reads with it. The list
/// below compiles only while each type is `Sendable`; the check beside it reads the library
/// modules' sources for their public types, so a new one left off the list fails here. (The opt-in
/// products' public types are `Transport`, `ClientTransport` and `NetworkCallInterceptor`
/// conformers, `Sendable` by those protocols, and `AsyncHTTPClientTransport.Configuration`,
/// checked in `AsyncHTTPClientInlineAttemptTests`.)
@Suite("Every public type is Sendable")
struct PublicSendabilityTests {
    /// The type's name as its declaration spells it, module and generic arguments left off (every
    /// `<…>`, so a type nested in a generic one keeps its own name).
    static func named<T: Sendable>(_ type: T.Type) -> String {
        var name = "", depth = 0
        for character in String(reflecting: type) {
            if character == "<" { depth += 1 } else if character == ">" { depth -= 1 } else if depth == 0 { name.append(character) }
        }
        return name.split(separator: ".").dropFirst().joined(separator: ".")
    }

    /// Not `Sendable`, on purpose: an iterator, or a reader, belongs to the task reading with it.
    static let taskBound: Set<String> = [
        "JSONLinesSequence.Iterator", "ServerSentEventSequence.Iterator", "NetworkResponseBody.Iterator",
        "NetworkEventSource.Iterator", "NetworkBodyStream.Reader",
    ]

    /// The library modules' public types, each `Sendable` (it would not compile otherwise).
    static let sendable = Set(sendableNames())

    private static func sendableNames() -> [String] {
        var names: [String] = []
        names.append(named(NetCore.NetworkCookie.self))
        names.append(named(NetCore.NetworkCookie.SameSite.self))
        names.append(named(NetCore.CurlCommand.self))
        names.append(named(NetCore.CurlOptions.self))
        names.append(named(NetCore.HTTPCode.self))
        names.append(named(NetCore.HTTPCode.Kind.self))
        names.append(named(NetCore.HTTPCodes.self))
        names.append(named(NetCore.JSONLinesDecoder<Int>.self))
        names.append(named(NetCore.JSONLinesSequence<Int, AsyncStream<Data>>.self))
        names.append(named(NetCore.NetworkMetrics.self))
        names.append(named(NetCore.NetworkMetrics.Phase.self))
        names.append(named(NetCore.NetworkMetrics.Attempt.self))
        names.append(named(NetCore.NetworkMetrics.PhaseTimes.self))
        names.append(named(NetCore.NetworkMetrics.Retry.self))
        names.append(named(NetCore.NetworkBodyStream.self))
        names.append(named(NetCore.NetworkCachePolicy.self))
        names.append(named(NetCore.NetworkCacheStatus.self))
        names.append(named(NetCore.NetworkDataResponse.self))
        names.append(named(NetCore.NetworkDecodingFailure.self))
        names.append(named(NetCore.NetworkDownloadResponse.self))
        names.append(named(NetCore.NetworkEmpty.self))
        names.append(named(NetCore.NetworkError.self))
        names.append(named(NetCore.NetworkError.RequestFailure.self))
        names.append(named(NetCore.NetworkError.InvalidURLReason.self))
        names.append(named(NetCore.NetworkError.InvalidHeaderReason.self))
        names.append(named(NetCore.NetworkError.ResponseFailure<NetworkDataResponse>.self))
        names.append(named(NetCore.NetworkError.TransportFailure.self))
        names.append(named(NetCore.NetworkError.ProxyFailure.self))
        names.append(named(NetCore.NetworkError.ResponseBodyLimit.self))
        names.append(named(NetCore.NetworkError.StreamFailure.self))
        names.append(named(NetCore.NetworkHeader.self))
        names.append(named(NetCore.NetworkHeaders.self))
        names.append(named(NetCore.NetworkHttpMethod.self))
        names.append(named(NetCore.NetworkQuery.self))
        names.append(named(NetCore.NetworkRedaction.self))
        names.append(named(NetCore.NetworkRequest.self))
        names.append(named(NetCore.NetworkRequestBody.self))
        names.append(named(NetCore.NetworkResponseHead.self))
        names.append(named(NetCore.NetworkUploadResponse.self))
        names.append(named(NetCore.NetworkUploadResponse.UploadType.self))
        names.append(named(NetCore.NetworkProxy.self))
        names.append(named(NetCore.NetworkProxy.Kind.self))
        names.append(named(NetCore.NetworkProxy.Credentials.self))
        names.append(named(NetCore.NoProxyRules.self))
        names.append(named(NetCore.ProxyConfiguration.self))
        names.append(named(NetCore.ServerSentEvent.self))
        names.append(named(NetCore.ServerSentEventDecoder.self))
        names.append(named(NetCore.ServerSentEventSequence<AsyncStream<Data>>.self))
        names.append(named(NetCore.PublicKeyPins.self))
        names.append(named(NetCore.TLSSettings.self))
        names.append(named(NetCore.TLSSettings.TrustedRoots.self))
        names.append(named(NetCore.TLSSettings.ClientIdentity.self))
        names.append(named(NetCore.TLSSettings.Version.self))
        names.append(named(NetCore.URLEncodedForm.self))
        names.append(named(NetCore.URLEncodedFormEncoder.self))
        names.append(named(NetCore.URLEncodedFormEncoder.ArrayEncoding.self))
        names.append(named(NetCore.URLEncodedFormEncoder.NestingEncoding.self))
        names.append(named(NetCore.URLEncodedFormEncoder.BoolEncoding.self))
        names.append(named(NetCore.URLEncodedFormEncoder.DateEncoding.self))
        names.append(named(NetCore.URLEncodedFormEncoder.KeyEncoding.self))
        names.append(named(NetTransport.AuthenticationInterceptor<String>.self))
        names.append(named(NetTransport.RefreshWindow.self))
        names.append(named(NetTransport.AuthenticationError.self))
        names.append(named(NetTransport.CacheControl.self))
        names.append(named(NetTransport.CachedResponse.self))
        names.append(named(NetTransport.CachingTransport.self))
        names.append(named(NetTransport.DiskCacheStorage.self))
        names.append(named(NetTransport.HTTPCache.self))
        names.append(named(NetTransport.MemoryCacheStorage.self))
        names.append(named(NetTransport.ConcurrencyLimitedTransport.self))
        names.append(named(NetTransport.CookieJar.self))
        names.append(named(NetTransport.CookieJarError.self))
        names.append(named(NetTransport.EventSourceReconnection.self))
        names.append(named(NetTransport.NetworkEventSource.self))
        names.append(named(NetTransport.HARArchive.self))
        names.append(named(NetTransport.HARArchive.Log.self))
        names.append(named(NetTransport.HARArchive.Creator.self))
        names.append(named(NetTransport.HARArchive.Entry.self))
        names.append(named(NetTransport.HARArchive.NameValue.self))
        names.append(named(NetTransport.HARArchive.Request.self))
        names.append(named(NetTransport.HARArchive.PostData.self))
        names.append(named(NetTransport.HARArchive.Cache.self))
        names.append(named(NetTransport.HARArchive.Response.self))
        names.append(named(NetTransport.HARArchive.Content.self))
        names.append(named(NetTransport.HARArchive.Timings.self))
        names.append(named(NetTransport.HARError.self))
        names.append(named(NetTransport.HARRecorder.self))
        names.append(named(NetTransport.LoggingInterceptor.self))
        names.append(named(NetTransport.NetworkCallResult.self))
        names.append(named(NetTransport.NetworkCallEnd.self))
        names.append(named(NetTransport.NetworkClient.self))
        names.append(named(NetTransport.NetworkProgress.self))
        names.append(named(NetTransport.NetworkProgress.Direction.self))
        names.append(named(NetTransport.NetworkSessionInterception.self))
        names.append(named(NetTransport.NetworkSessionInterceptionResult.self))
        names.append(named(NetTransport.NetworkResponseBody.self))
        names.append(named(NetTransport.RedirectPolicy.self))
        names.append(named(NetTransport.RedirectRule.self))
        names.append(named(NetTransport.ResponseLimits.self))
        names.append(named(NetTransport.ResponseLimits.DecompressionLimit.self))
        names.append(named(NetTransport.RetryAfter.self))
        names.append(named(NetTransport.RetryPolicy.self))
        names.append(named(NetTransport.SharedRequestsTransport.self))
        names.append(named(NetTransport.StubResponse.self))
        names.append(named(NetTransport.StubResponse.Outcome.self))
        names.append(named(NetTransport.StubTransport.self))
        names.append(named(NetTransport.StubTransport.RecordedRequest.self))
        names.append(named(NetTransport.NetworkStreamResponse.self))
        names.append(named(NetTransport.TransportBodyDestination.self))
        names.append(named(NetTransport.TransportResponse.self))
        names.append(named(NetTransport.URLSessionTransport.self))
        names.append(named(NetTransport.URLSessionTransport.Configuration.self))
        names.append(named(NetMultipart.MediaTypes.self))
        names.append(named(NetMultipart.NetworkMultipartForm.self))
        names.append(named(NetMultipart.MultipartPart.self))
        names.append(named(NetMultipart.MultipartPart.Body.self))
        names.append(named(NetMultipart.ContentDispositionParameter.self))
        names.append(named(NetMultipart.NetworkMultipartFormDataRequest.self))
        names.append(named(NetMultipart.NetworkMultipartFormFileRequest.self))
        names.append(named(NetMultipart.NetworkMultipartFormJsonRequest<Int>.self))
        names.append(named(NetReachability.IPAddress.self))
        names.append(named(NetReachability.IPAddress.Family.self))
        names.append(named(NetReachability.NetworkPath.self))
        names.append(named(NetReachability.NetworkInterface.self))
        names.append(named(NetReachability.NetworkGateway.self))
        names.append(named(NetReachability.NetworkReachability.self))
        names.append(named(NetReachability.NetworkReachability.Connection.self))
        names.append(named(NetReachability.ReachabilityError.self))
        return names
    }

    /// Every public type declared in the library modules' sources, qualified by the types and
    /// extensions it is nested in (read by indentation, as the sources are formatted): one declared
    /// `public` or `open`, in any order with other modifiers and after attributes on its line, or
    /// declared without an access level inside a `public extension`.
    static func declaredPublicTypes() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let declaration = /^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*((?:(?:public|open|package|internal|fileprivate|private|final|indirect)\s+)*)(struct|class|enum|actor|extension|protocol)\s+(?!(?:func|var|let|subscript)\b)([A-Za-z_][A-Za-z0-9_.]*)/
        // (A `class func` or `class var` is a member, not a type: the lookahead leaves it out.)
        let accessLevels: Set<Substring> = ["public", "open", "package", "internal", "fileprivate", "private"]
        var names: Set<String> = []
        for module in ["NetCore", "NetTransport", "NetMultipart", "NetReachability"] {
            let enumerator = FileManager.default.enumerator(
                at: root.appendingPathComponent("Sources").appendingPathComponent(module), includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                var enclosing: [(indent: Int, name: String, publicExtension: Bool)] = []
                var previous: Substring = ""
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    defer { previous = line }
                    guard let match = line.prefixMatch(of: declaration) else { continue }
                    let indent = match.output.1.count
                    while let last = enclosing.last, last.indent >= indent { enclosing.removeLast() }
                    let modifiers = Set(match.output.2.split(separator: " ", omittingEmptySubsequences: true))
                    let kind = match.output.3
                    let inPublicExtension = enclosing.last?.publicExtension ?? false
                    let declaredPublic = !modifiers.isDisjoint(with: ["public", "open"])
                        || (inPublicExtension && modifiers.isDisjoint(with: accessLevels))
                    enclosing.append((indent, String(match.output.4), kind == "extension" && declaredPublic))
                    // Not one behind an SPI (`@_spi(NetInternals)`, for Net's own modules): not public API.
                    let behindSPI = line.contains("@_spi") || previous.trimmingCharacters(in: .whitespaces).hasPrefix("@_spi")
                    if declaredPublic, kind != "extension", kind != "protocol", !behindSPI {
                        names.insert(enclosing.map(\.name).joined(separator: "."))
                    }
                }
            }
        }
        return names
    }

    @Test("each public type of NetCore, NetTransport, NetMultipart and NetReachability is listed, so checked")
    func everyPublicTypeIsChecked() throws {
        let declared = try Self.declaredPublicTypes()
        #expect(declared.count > 100, "the sources were read: \(declared.count) public types")
        #expect(declared.subtracting(Self.sendable).subtracting(Self.taskBound).sorted() == [])
        #expect(Self.sendable.subtracting(declared).sorted() == [], "a listed type the sources no longer declare")
        #expect(Self.taskBound.isSubset(of: declared))
    }
}

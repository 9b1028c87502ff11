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
    static func named(_ type: any Sendable.Type) -> String {
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
    static let sendableTypes: [any Sendable.Type] = [
        NetCore.NetworkCookie.self,
        NetCore.NetworkCookie.SameSite.self,
        NetCore.CurlCommand.self,
        NetCore.CurlOptions.self,
        NetCore.HTTPCode.self,
        NetCore.HTTPCode.Kind.self,
        NetCore.HTTPCodes.self,
        NetCore.JSONLinesDecoder<Int>.self,
        NetCore.JSONLinesSequence<Int, AsyncStream<Data>>.self,
        NetCore.NetworkMetrics.self,
        NetCore.NetworkMetrics.Phase.self,
        NetCore.NetworkMetrics.Attempt.self,
        NetCore.NetworkMetrics.PhaseTimes.self,
        NetCore.NetworkMetrics.Retry.self,
        NetCore.NetworkBodyStream.self,
        NetCore.NetworkCachePolicy.self,
        NetCore.NetworkCacheStatus.self,
        NetCore.NetworkDataResponse.self,
        NetCore.NetworkDecodingFailure.self,
        NetCore.NetworkDownloadResponse.self,
        NetCore.NetworkEmpty.self,
        NetCore.NetworkError.self,
        NetCore.NetworkError.RequestFailure.self,
        NetCore.NetworkError.InvalidURLReason.self,
        NetCore.NetworkError.InvalidHeaderReason.self,
        NetCore.NetworkError.ResponseFailure<NetworkDataResponse>.self,
        NetCore.NetworkError.TransportFailure.self,
        NetCore.NetworkError.ProxyFailure.self,
        NetCore.NetworkError.ResponseBodyLimit.self,
        NetCore.NetworkError.StreamFailure.self,
        NetCore.NetworkHeader.self,
        NetCore.NetworkHeaders.self,
        NetCore.NetworkHttpMethod.self,
        NetCore.NetworkQuery.self,
        NetCore.NetworkRedaction.self,
        NetCore.NetworkRequest.self,
        NetCore.NetworkRequestBody.self,
        NetCore.NetworkResponseHead.self,
        NetCore.NetworkUploadResponse.self,
        NetCore.NetworkUploadResponse.UploadType.self,
        NetCore.NetworkProxy.self,
        NetCore.NetworkProxy.Kind.self,
        NetCore.NetworkProxy.Credentials.self,
        NetCore.NoProxyRules.self,
        NetCore.ProxyConfiguration.self,
        NetCore.ServerSentEvent.self,
        NetCore.ServerSentEventDecoder.self,
        NetCore.ServerSentEventSequence<AsyncStream<Data>>.self,
        NetCore.PublicKeyPins.self,
        NetCore.TLSSettings.self,
        NetCore.TLSSettings.TrustedRoots.self,
        NetCore.TLSSettings.ClientIdentity.self,
        NetCore.TLSSettings.Version.self,
        NetCore.URLEncodedForm.self,
        NetCore.URLEncodedFormEncoder.self,
        NetCore.URLEncodedFormEncoder.ArrayEncoding.self,
        NetCore.URLEncodedFormEncoder.NestingEncoding.self,
        NetCore.URLEncodedFormEncoder.BoolEncoding.self,
        NetCore.URLEncodedFormEncoder.DateEncoding.self,
        NetCore.URLEncodedFormEncoder.KeyEncoding.self,
        NetTransport.AuthenticationInterceptor<String>.self,
        NetTransport.RefreshWindow.self,
        NetTransport.AuthenticationError.self,
        NetTransport.CacheControl.self,
        NetTransport.CachedResponse.self,
        NetTransport.CachingTransport.self,
        NetTransport.DiskCacheStorage.self,
        NetTransport.HTTPCache.self,
        NetTransport.MemoryCacheStorage.self,
        NetTransport.ConcurrencyLimitedTransport.self,
        NetTransport.CookieJar.self,
        NetTransport.CookieJarError.self,
        NetTransport.EventSourceReconnection.self,
        NetTransport.NetworkEventSource.self,
        NetTransport.HARArchive.self,
        NetTransport.HARArchive.Log.self,
        NetTransport.HARArchive.Creator.self,
        NetTransport.HARArchive.Entry.self,
        NetTransport.HARArchive.NameValue.self,
        NetTransport.HARArchive.Request.self,
        NetTransport.HARArchive.PostData.self,
        NetTransport.HARArchive.Cache.self,
        NetTransport.HARArchive.Response.self,
        NetTransport.HARArchive.Content.self,
        NetTransport.HARArchive.Timings.self,
        NetTransport.HARError.self,
        NetTransport.HARRecorder.self,
        NetTransport.LoggingInterceptor.self,
        NetTransport.NetworkCallResult.self,
        NetTransport.NetworkCallEnd.self,
        NetTransport.NetworkClient.self,
        NetTransport.NetworkProgress.self,
        NetTransport.NetworkProgress.Direction.self,
        NetTransport.NetworkSessionInterception.self,
        NetTransport.NetworkSessionInterceptionResult.self,
        NetTransport.NetworkResponseBody.self,
        NetTransport.RedirectPolicy.self,
        NetTransport.RedirectRule.self,
        NetTransport.ResponseLimits.self,
        NetTransport.ResponseLimits.DecompressionLimit.self,
        NetTransport.RetryAfter.self,
        NetTransport.RetryPolicy.self,
        NetTransport.SharedRequestsTransport.self,
        NetTransport.StubResponse.self,
        NetTransport.StubResponse.Outcome.self,
        NetTransport.StubTransport.self,
        NetTransport.StubTransport.RecordedRequest.self,
        NetTransport.NetworkStreamResponse.self,
        NetTransport.TransportBodyDestination.self,
        NetTransport.TransportResponse.self,
        NetTransport.URLSessionTransport.self,
        NetTransport.URLSessionTransport.Configuration.self,
        NetMultipart.MediaTypes.self,
        NetMultipart.NetworkMultipartForm.self,
        NetMultipart.MultipartPart.self,
        NetMultipart.MultipartPart.Body.self,
        NetMultipart.ContentDispositionParameter.self,
        NetMultipart.NetworkMultipartFormDataRequest.self,
        NetMultipart.NetworkMultipartFormFileRequest.self,
        NetMultipart.NetworkMultipartFormJsonRequest<Int>.self,
        NetReachability.IPAddress.self,
        NetReachability.IPAddress.Family.self,
        NetReachability.NetworkPath.self,
        NetReachability.NetworkInterface.self,
        NetReachability.NetworkGateway.self,
        NetReachability.NetworkReachability.self,
        NetReachability.NetworkReachability.Connection.self,
        NetReachability.ReachabilityError.self,
    ]

    static let sendable = Set(sendableTypes.map(named))

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

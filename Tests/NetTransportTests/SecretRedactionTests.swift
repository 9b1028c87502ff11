import Foundation
import Synchronization
import NetCore
import NetTransport
import Testing

/// Credentials never reach text a person or a log reads: requests that succeed, fail with a
/// status, fail to decode, time out, cannot connect or are refused as invalid are logged by
/// `LoggingInterceptor`, described, dumped and rendered as curl commands, and none of that text
/// holds a secret. Only what the caller asks for explicitly (`CurlOptions.unredacted`) shows them.
@Suite("Secrets stay out of logs, errors, descriptions and curl commands")
struct SecretRedactionTests {
    /// Distinct values, so a leak names which credential leaked.
    static let secrets = [
        "bearer-SECRET-1", "cookie-SECRET-2", "proxy-SECRET-3", "marked-SECRET-4", "token-SECRET-5", "pass-SECRET-6",
        "private-SECRET-7",
    ]

    static func signed(_ url: String, timeout: Duration? = nil) throws -> NetworkRequest {
        var request = try NetworkRequest(
            url: url,
            headers: [
                .header(key: "Authorization", value: "Bearer \(secrets[0])"),
                .header(key: "Cookie", value: "session=\(secrets[1])"),
                .header(key: "Proxy-Authorization", value: "Basic \(secrets[2])"),
                .header(key: "PRIVATE-TOKEN", value: secrets[6]),  // a name Net does not know, marked below
            ],
            query: [.secret(key: "session_key", value: secrets[3]), .query(key: "access_token", value: secrets[4]), .query(key: "page", value: "2")],
            timeout: timeout)
        request.secretHeaderNames.insert("private-token")
        return request
    }

    /// Every text Net produces about `request` and the `outcome` of sending it.
    static func texts(of request: NetworkRequest, outcome: Result<NetworkDataResponse, any Error>) -> [String] {
        var texts = [request.description, String(reflecting: request), request.curl, request.curlCommand(.default).description]
        var dumped = ""
        dump(request, to: &dumped)
        texts.append(dumped)
        switch outcome {
        case .success(let response):
            texts += [response.description, String(reflecting: response), response.response.headers.description]
            var dumpedResponse = ""
            dump(response, to: &dumpedResponse)
            texts.append(dumpedResponse)
        case .failure(let error):
            texts += ["\(error)", String(reflecting: error), error.localizedDescription]
            var dumpedError = ""
            dump(error, to: &dumpedError)
            texts.append(dumpedError)
        }
        return texts
    }

    static func expectNoSecret(in texts: [String], _ context: String) {
        for text in texts {
            for secret in secrets where text.contains(secret) {
                Issue.record("\(context): \(secret) appears in: \(text)")
            }
        }
    }

    /// What one row of ``everyOutcomeIsRedacted()`` must end in, so that a row ending some other
    /// way (a timeout that turned into a refusal) cannot pass with its own text unchecked.
    enum Expected {
        case success, status, decodeFailure, timedOut, cannotConnect, tooManyRedirects

        func matches(_ outcome: Result<NetworkDataResponse, any Error>) -> Bool {
            switch (self, outcome) {
            case (.success, .success): true
            case (.status, .failure(NetworkError.responseData(.invalidStatusCode))): true
            case (.decodeFailure, .failure(NetworkError.responseData(.decodeError))): true
            case (.timedOut, .failure(NetworkError.transport(.timedOut))): true
            case (.cannotConnect, .failure(NetworkError.transport(.cannotConnect))): true
            case (.tooManyRedirects, .failure(NetworkError.transport(.tooManyRedirects))): true
            default: false
            }
        }
    }

    @Test("success, 5xx, decode failure, timeout, refused connection and redirect limit: no secret in any text")
    func everyOutcomeIsRedacted() async throws {
        let log = LogLines()
        let client = NetworkClient(interceptors: [LoggingInterceptor { log.append($0) }], redirectPolicy: .follow(limit: 1))
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let refused = "http://127.0.0.1:1"
        // Two redirects where one is allowed; the one past the limit names the server's URL, with
        // a token of its own, in the error.
        let beyondLimit = "/echo?access_token=\(Self.secrets[4])"
        let secondHop = "/redirect/302?to=" + (beyondLimit.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let firstHop = base + "/redirect/302?to=" + (secondHop.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let cases: [(String, NetworkRequest, Expected, @Sendable (NetworkDataResponse) throws -> Void)] = [
            ("success", try Self.signed(base + "/echo"), .success, { _ in }),
            ("500 validated", try Self.signed(base + "/status/500"), .status, { try $0.validate() }),
            ("decode failure", try Self.signed(base + "/echo"), .decodeFailure, { _ = try $0.jsonDecode([String].self) }),
            ("timeout", try Self.signed(base + "/delay/3000", timeout: .milliseconds(300)), .timedOut, { _ in }),
            ("refused", try Self.signed(refused + "/x"), .cannotConnect, { _ in }),
            ("password in the URL", try Self.signed("http://user:\(Self.secrets[5])@127.0.0.1:1/x"), .cannotConnect, { _ in }),
            ("redirect limit", try Self.signed(firstHop), .tooManyRedirects, { _ in }),
        ]
        for (name, request, expected, check) in cases {
            let outcome: Result<NetworkDataResponse, any Error>
            do {
                let response = try await client.requestData(for: request)
                try check(response)
                outcome = .success(response)
            } catch {
                outcome = .failure(error)
            }
            #expect(expected.matches(outcome), "\(name) ended in \(outcome)")
            Self.expectNoSecret(in: Self.texts(of: request, outcome: outcome), name)
        }
        Self.expectNoSecret(in: log.lines, "LoggingInterceptor")
        #expect(log.lines.count >= 2 * cases.count, "every request and result was logged")
        #expect(log.lines.contains { $0.contains("Bearer REDACTED") && $0.contains("session_key=REDACTED") && $0.contains("page=2") })
        #expect(log.lines.contains { $0.contains("access_token=REDACTED") && $0.contains("redirects") },
                "the redirect past the limit is logged, its token redacted: \(log.lines)")
    }

    @Test("a cache miss for a request that allowed only the cache names its URL redacted")
    func cacheMissIsRedacted() async throws {
        let client = NetworkClient(transport: StubTransport(), cache: HTTPCache())
        var request = try Self.signed("https://api.example.com/items")
        request.cachePolicy = .returnCacheDataDontLoad
        let outcome: Result<NetworkDataResponse, any Error>
        do { outcome = .success(try await client.requestData(for: request)) } catch { outcome = .failure(error) }
        guard case .failure(NetworkError.transport(.notInCache(let named))) = outcome else {
            Issue.record("expected notInCache, got \(outcome)")
            return
        }
        #expect(named.contains("session_key=REDACTED") && named.contains("page=2"), "\(named)")
        Self.expectNoSecret(in: Self.texts(of: request, outcome: outcome), "cache miss")
    }

    @Test("an invalid URL's error does not repeat its credentials")
    func invalidURLIsRedacted() {
        #expect {
            _ = try NetworkRequest(url: "https://user:\(Self.secrets[5])@example.com/a b?token=\(Self.secrets[4])")
        } throws: { error in
            Self.expectNoSecret(in: ["\(error)", String(reflecting: error)], "invalid URL")
            return "\(error)".contains("token=REDACTED") && "\(error)".contains("user:REDACTED@")
        }
    }

    @Test("only an explicit request shows the values: unredacted curl, the raw properties")
    func explicitRequestShowsThem() throws {
        let request = try Self.signed("https://api.example.com/items")
        let unredacted = request.curlCommand(.unredacted).shellCommand
        for secret in Self.secrets.prefix(5) { #expect(unredacted.contains(secret)) }
        #expect(request.headers["Authorization"] == "Bearer \(Self.secrets[0])")
        #expect(request.url.absoluteString.contains("session_key=\(Self.secrets[3])"))
        #expect(request.secretQueryKeys == ["session_key"])
        // A key marked on one request is not hidden on another, and any case of it is hidden.
        var other = try NetworkRequest(url: "https://api.example.com/items?Session_Key=visible")
        #expect(other.description.contains("visible"))
        other.secretQueryKeys.insert("SESSION_KEY")
        #expect(!other.description.contains("visible"))
    }
    @Test("proxy credentials and a client key with its passphrase: no secret in descriptions, dumps or any proxy error")
    func proxyAndTLSSettingsAreRedacted() throws {
        let proxyPassword = Self.secrets[5]
        let proxy = try NetworkProxy(url: "http://net-user:\(proxyPassword)@proxy.internal:3128")
        let socks = NetworkProxy(kind: .socks5, host: "127.0.0.1", credentials: .init(username: "u", password: proxyPassword))
        let configuration = ProxyConfiguration(httpProxy: proxy, httpsProxy: socks, noProxy: "localhost")
        let fromEnvironment = try ProxyConfiguration.environment(["HTTPS_PROXY": "socks5://u:\(proxyPassword)@127.0.0.1"])
        let tls = TLSSettings(clientIdentity: .init(certificateChainPEM: "-----BEGIN CERTIFICATE-----",
                                                    privateKeyPEM: "-----BEGIN PRIVATE KEY-----\n\(Self.secrets[0])",
                                                    passphrase: Self.secrets[1]))
        var texts = ["\(proxy)", "\(socks)", String(reflecting: proxy), "\(configuration)", "\(fromEnvironment)", "\(tls)", String(reflecting: tls)]
        for value in [configuration as Any, fromEnvironment, tls] {
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        var errors: [NetworkError] = [
            .transport(.proxy(.authenticationFailed(proxy: "\(proxy)"))),
            .transport(.proxy(.cannotConnect(proxy: "\(socks)", reason: "refused"))),
        ]
        for malformed in ["ftp://u:\(proxyPassword)@proxy:21", "http://u:\(proxyPassword)@proxy:99999", "http://u:\(proxyPassword)@proxy/path"] {
            do {
                _ = try NetworkProxy(url: malformed)
                Issue.record("\(malformed) was accepted")
            } catch {
                errors.append(error)
            }
        }
        do {
            _ = try ProxyConfiguration.environment(["http_proxy": "gopher://u:\(proxyPassword)@proxy"])
            Issue.record("a malformed http_proxy was accepted")
        } catch {
            errors.append(error)
        }
        for error in errors {
            var dumped = ""
            dump(error, to: &dumped)
            texts += ["\(error)", String(reflecting: error), error.localizedDescription, dumped]
        }
        // The settings' own texts say a secret was there.
        #expect(texts.prefix(7).allSatisfy { $0.contains("REDACTED") }, "\(texts.prefix(7))")
        Self.expectNoSecret(in: texts, "proxy and TLS settings")
    }
}

/// Log lines collected from any thread.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

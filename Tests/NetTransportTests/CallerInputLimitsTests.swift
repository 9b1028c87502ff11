import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// Values a caller may pass that reach arithmetic which traps (a `Duration`'s `components` past
/// `Int64.max` seconds, `Int64(Double)` of a NaN, `limit + 1` at `Int.max`): each is held to a
/// range or refused with a typed error, never a crash. Before their fixes these trapped, but the
/// cookie jar, which wrote a file it could not read back.
@Suite("Caller input at the limits of its type")
struct CallerInputLimitsTests {
    static let longest = Duration.seconds(UInt64.max)  // about 1.8 × 10^19 s, past Int64.max seconds

    @Test("timeouts past Int64.max seconds, on the call, the request and the attempt, on either clock", .timeLimit(.minutes(3)))
    func enormousTimeouts() async throws {
        let stub = StubTransport { _ in .text("ok") }
        for clock in [ContinuousClock() as any Clock<Duration>, SuspendingClock()] {
            let client = NetworkClient(transport: stub, timeout: Self.longest, attemptTimeout: Self.longest, clock: clock)
            #expect(try await client.requestData(for: "https://host/a").statusCode == 200)
            // As far the other way: no time at all, a timeout rather than a trap.
            let negative = NetworkClient(transport: stub, timeout: .zero - Self.longest, attemptTimeout: .zero - Self.longest, clock: clock)
            await #expect { _ = try await negative.requestData(for: "https://host/n") } throws: { error in
                guard case NetworkError.transport(.timedOut) = error else { return false }
                return true
            }
            let request = try NetworkRequest(url: "https://host/b", timeout: Self.longest)
            #expect(try await client.requestData(for: request).statusCode == 200)
            #expect(request.curl.contains("--max-time '1000000000000.0'"), "\(request.curl)")
        }
        #expect(try await stub.send(try NetworkRequest(url: "https://host/c"), timeout: Self.longest).head.statusCode == 200)
    }

    @Test("Duration conversions saturate at their limits")
    func durationConversions() {
        #expect(Self.longest.wholeNanoseconds == .max)
        #expect((Duration.seconds(9_223_372_036) + .milliseconds(900)).wholeNanoseconds == .max)
        #expect((.zero - Duration.seconds(9_223_372_036) - .milliseconds(900)).wholeNanoseconds == .min)
        #expect(Duration.milliseconds(1500).wholeNanoseconds == 1_500_000_000)
        #expect(Self.longest.secondsValue == 1e12)
        #expect((.zero - Self.longest).secondsValue == -1e12)
        #expect(Self.longest.millisecondsText == "1000000000000000.0")
        #expect((.zero - Duration.milliseconds(1500)).wholeNanoseconds == -1_500_000_000)
        #expect((.zero - Duration.milliseconds(1500)).secondsValue == -1.5)
    }

    @Test("a retry policy's backoff at any setting: a wait from zero to the longest, never a trap")
    func retryBackoff() {
        var policies = [
            RetryPolicy(baseDelay: Self.longest, maximumDelay: Self.longest),
            RetryPolicy(maximumDelay: Self.longest),
            RetryPolicy(baseDelay: .zero, multiplier: .infinity),
            RetryPolicy(baseDelay: .seconds(1), multiplier: .infinity, maximumDelay: .seconds(5), jitter: 0),
        ]
        var variables = RetryPolicy()
        variables.multiplier = .nan
        variables.jitter = .infinity
        policies.append(variables)
        variables.jitter = .nan
        variables.maximumDelay = .zero - Self.longest
        policies.append(variables)
        for policy in policies {
            for retry in [-1, 0, 1, 55, 60, Int.max] {
                let wait = policy.backoff(forRetry: retry)
                #expect(wait >= .zero && wait <= .longestWait * 2, "\(wait) for retry \(retry)")
            }
        }
        #expect(policies[3].backoff(forRetry: 2) == .seconds(5))  // grown past the cap: the cap
        #expect(variables.backoff(forRetry: 3) == .zero)  // a negative cap: no wait
    }

    @Test("event-source reconnection waits at any setting and any server retry: from zero to the longest, and they end",
          .timeLimit(.minutes(3)))
    func reconnectionDelays() {
        let settings = [
            EventSourceReconnection(defaultRetry: .seconds(-1), minimumBackoff: .seconds(-1)),
            EventSourceReconnection(maximumDelay: Self.longest),
            EventSourceReconnection(defaultRetry: Self.longest, maximumDelay: Self.longest),
            EventSourceReconnection(defaultRetry: .zero, minimumBackoff: .zero, maximumDelay: Self.longest),
        ]
        for policy in settings {
            for retry in [nil, Duration.seconds(Int64.max), .seconds(-5)] {
                for failures in [0, 1, 69, 200, Int.max] {
                    let wait = policy.delay(retry: retry, failures: failures)
                    #expect(wait >= .zero && wait <= .longestWait, "\(wait) after \(failures)")
                }
            }
        }
        #expect(settings[1].delay(retry: nil, failures: Int.max) == .longestWait)
        #expect(EventSourceReconnection().delay(retry: nil, failures: 3) == .seconds(12))  // 3 s, doubled twice
    }

    @Test("a stub delayed past Int64.max seconds waits until cancelled", .timeLimit(.minutes(3)))
    func enormousStubDelay() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: StubResponse.status(.ok).delayed(by: Self.longest))
        let call = Task { try await stub.send(try NetworkRequest(url: "https://host/x", timeout: .seconds(3600))) }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count == 1 })
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
    }

    @Test("status code sets spanning all of Int describe themselves")
    func codeSetsAtTheLimits() {
        #expect("\(HTTPCodes(0...Int.max))" == "0...\(Int.max)")
        #expect("\(HTTPCodes(Int.min...Int.max).subtracting([404]))" == "\(Int.min)...403, 405...\(Int.max)")
        #expect("\(HTTPCodes([404]))" == "404")
    }

    @Test("a disk cache with no byte limit (Int.max) stores and serves", .timeLimit(.minutes(3)))
    func unlimitedDiskCache() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .text("cached", headers: [.header(key: "Cache-Control", value: "max-age=3600")]))
        let client = NetworkClient(transport: stub, cache: try HTTPCache.disk(directory: directory, byteLimit: .max))
        for _ in 0..<2 { #expect(try await client.requestData(for: "https://host/x").data == Data("cached".utf8)) }
        #expect(stub.requests.count == 1)
    }

    @Test("a cookie jar file whose clock or cookies are beyond ISO 8601's years is still written and read back",
          arguments: [1e15, -1e15, Double.nan])  // seconds since 1970 (Foundation's Date.description traps on these)
    func cookieJarDatesAtTheLimits(secondsSince1970: Double) throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jar.json")
        let extreme = Date(timeIntervalSince1970: secondsSince1970)
        let jar = try CookieJar(contentsOf: file, now: { extreme })
        try jar.storeCookies(from: try NetworkHeaders([.header(key: "Set-Cookie", value: "a=1; Max-Age=60")]), for: try #require(URL(string: "https://host/")))
        let given = CookieJar(cookies: [NetworkCookie(name: "b", value: "2", domain: "host", expires: extreme)])
        _ = given.cookies
        // Read back (a jar that does not parse throws); a clock that is not a number stores
        // nothing (no expiry compares with it), so writes no file.
        let read = try CookieJar(contentsOf: file)
        #expect(FileManager.default.fileExists(atPath: file.path) == !secondsSince1970.isNaN)
        // Set far in the future, it expires in year 4000: still there now; set far in the past,
        // it had expired long before.
        #expect(read.cookies.map(\.name) == (secondsSince1970 == 1e15 ? ["a"] : []))
        #expect(CookieFile.writable(extreme) >= .distantPast && CookieFile.writable(extreme) <= .distantFuture)
        #expect(try CookieFile.decode(try CookieFile.encode([NetworkCookie(name: "c", value: "3", domain: "host", expires: extreme)]),
                                      path: file.path).count == 1)
    }
}

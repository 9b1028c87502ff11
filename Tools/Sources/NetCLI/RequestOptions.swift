import ArgumentParser
import Foundation
import Net

/// The arguments every verb (`net get`, `net post`…) takes.
public struct RequestOptions: ParsableArguments {
    /// Creates empty options; ArgumentParser fills them in.
    public init() {}

    @Argument(help: "The URL. `http://` is assumed without a scheme; `:8080/x` is http://localhost:8080/x.")
    var url: String

    @Argument(help: ArgumentHelp(
        "Header:value, name==query, field=string, field:=json, field@file (multipart upload).",
        discussion: "A backslash makes the next `:`, `=` or `@` part of the name."))
    var items: [String] = []

    @Flag(name: .shortAndLong, help: "Print the response headers too.")
    var verbose = false

    @Flag(name: [.customShort("b"), .long], help: ArgumentHelp(
        "Print only the body, byte for byte: no status line, no re-indenting (as HTTPie's --body); for output redirected to a file.",
        discussion: "The exit status still tells the response's class."))
    var body = false

    @Flag(name: .shortAndLong, help: "Send fields as a form (application/x-www-form-urlencoded) instead of JSON.")
    var form = false

    @Option(help: ArgumentHelp("Send `Authorization: Bearer TOKEN`.", valueName: "token"))
    var bearer: String?

    @Option(help: ArgumentHelp("Write the body to FILE, with a progress bar when standard error is a terminal.", valueName: "file"))
    var download: String?

    @Option(help: ArgumentHelp(
        "Keep cookies and the headers you give in FILE, and send them again on every run that names it (as HTTPie's --session).",
        discussion: "The file (JSON, owner-only) holds what you typed, credentials included: protect it like a .netrc.",
        valueName: "file"))
    var session: String?

    @Flag(name: [.customShort("c"), .customLong("continue")], help: ArgumentHelp(
        "With --download: keep an interrupted body in FILE.part and continue from it on the next run (Range with If-Range).",
        discussion: "Without a validator (ETag or Last-Modified) from the server nothing can be continued safely, and the download starts over."))
    var continueDownload = false

    @Flag(name: [.customShort("S"), .long], help: "Print the body as it arrives, chunk by chunk, without pretty-printing.")
    var stream = false

    @Flag(help: ArgumentHelp(
        "After the response, print on standard error when each phase of each attempt ended, in ms from the start of the call (as curl -w).",
        discussion: "Phases the transport cannot see (DNS, connect and TLS with either transport on Linux) are left out, not printed as zero."))
    var timings = false

    @Flag(help: "Print the equivalent curl command, credentials redacted, without sending anything.")
    var curl = false

    @Option(help: ArgumentHelp("Retry up to N times with Net's retry policy (idempotent methods; 408, 429, 5xx, transient failures).", valueName: "n"))
    var retry = 0

    @Option(help: ArgumentHelp("Give up after SECONDS (fractions allowed).", valueName: "seconds"))
    var timeout: Double?

    @Flag(help: "Do not follow redirects.")
    var noFollow = false

    @Option(help: ArgumentHelp(
        "The most bytes a body may hold in memory, and a compressed body may decode to (also with --download); K, M, G suffixes, or `none`.",
        discussion: "Without it a body held in memory stops at 256 MiB and a compressed body at 100 times its compressed size (decompression bombs).",
        valueName: "size"))
    var maxSize: SizeLimit?

    @Option(help: ArgumentHelp("The transport: urlsession or ahc (AsyncHTTPClient, the default on Linux).", valueName: "name"))
    var transport: TransportChoice = .platformDefault

    @OptionGroup(title: "TLS and proxies") var connection: ConnectionOptions

    /// Checked by ArgumentParser before running: failures are usage errors (status 2).
    public mutating func validate() throws {
        guard retry >= 0 else { throw ValidationError("--retry must be 0 or more, not \(retry)") }
        if let timeout {
            guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds, not \(timeout)") }
            // Below a millisecond nothing could answer, and below a nanosecond it rounds to none.
            guard timeout >= 0.001 else { throw ValidationError("--timeout must be at least 0.001 seconds, not \(timeout)") }
            // Past this the nanosecond count of the deadline would overflow; nobody means more.
            guard timeout <= Self.maximumTimeout else {
                throw ValidationError("--timeout must be at most \(Int(Self.maximumTimeout)) seconds (a year), not \(timeout)")
            }
        }
        if curl && timings { throw ValidationError("--curl prints a command and sends nothing, so --timings has nothing to time") }
        if curl && download != nil { throw ValidationError("--curl prints a command and sends nothing, so --download has nothing to save") }
        if continueDownload && download == nil { throw ValidationError("--continue resumes a --download FILE: give one") }
        if body && verbose { throw ValidationError("--body prints the body alone and --verbose adds the headers: choose one") }
        if stream && download != nil { throw ValidationError("--stream prints the body as it arrives and --download saves it: choose one") }
        if let download { try Self.validateDestination(download, continues: continueDownload) }
        if transport == .urlsession && connection.isSet {
            throw ValidationError(
                "--cacert, --cert, --key, --pass, --pinnedpubkey, --proxy and --noproxy need --transport ahc: URLSession on Linux takes no TLS or proxy settings (its libcurl reads http_proxy and kin from the environment itself)")
        }
    }

    /// A `--download` FILE that could never be written is a usage error before anything is sent,
    /// not a failure after the whole body has arrived: a directory, or a file in a folder that
    /// does not exist.
    private static func validateDestination(_ path: String, continues: Bool) throws {
        var isDirectory: ObjCBool = false
        guard !path.isEmpty else { throw ValidationError("--download needs a file name, not an empty one") }
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw ValidationError("--download \(path) is a directory: name the file to write")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--download \(path): the folder \(folder) does not exist")
        }
        // A name the folder cannot hold fails at once, not once the request has been answered;
        // with --continue, so does one with no room for `NAME.part.json` beside it.
        let name = URL(fileURLWithPath: path).lastPathComponent
        let longest = longestName(in: folder)
        if name.utf8.count > longest {
            throw ValidationError("--download \(path): its name is \(name.utf8.count) bytes; names in \(folder) hold at most \(longest)")
        }
        if continues, name.utf8.count + ".part.json".utf8.count > longest {
            throw ValidationError("--download \(path) --continue: the partial download is kept as NAME.part and NAME.part.json, and names in \(folder) hold at most \(longest) bytes; this one is \(name.utf8.count)")
        }
        // The body replaces the file by a rename when complete: a device or a pipe in its place
        // (`/dev/null`, a FIFO), or a link to one or into /proc (`/dev/stdout` is a link to
        // /proc/self/fd/1, which can lead to a file), would be replaced, not written to.
        let refusal = ValidationError("--download \(path) is not a regular file (a device, a pipe, a socket or a link to one): without --download, the body goes to standard output, which you can redirect")
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK:
                if Self.linkLeadsIntoProcOrDevices(path) { throw refusal }
                if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG { throw refusal }
            default: throw refusal
            }
        }
        if let resolved = realpath(folder, nil) {
            defer { free(resolved) }
            if String(cString: resolved).hasPrefix("/proc/") { throw refusal }  // /proc/self/fd/…
        }
    }

    /// A hidden file beside `path` to write first and rename onto it: `.NAME.unique`, or
    /// `.unique` when the name leaves no room for that in its folder.
    static func stagingURL(beside path: String, unique: String) -> URL {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let named = ".\(url.lastPathComponent).\(unique)"
        return folder.appendingPathComponent(named.utf8.count <= longestName(in: folder.path) ? named : ".\(unique)")
    }

    /// The most bytes a file name may have in `folder` (`pathconf`: 255 on most file systems,
    /// 143 on eCryptfs), or 255 when it cannot be asked.
    static func longestName(in folder: String) -> Int {
        let longest = pathconf(folder, Int32(_PC_NAME_MAX))
        return longest > 0 ? Int(longest) : 255
    }

    /// Whether following the link at `path`, link by link (relative targets from the link's own
    /// folder, 40 links at most, as the kernel allows), passes through /proc or /dev (but
    /// /dev/shm, an ordinary tmpfs): there, `/proc/self/fd/1` can lead on to any file.
    private static func linkLeadsIntoProcOrDevices(_ path: String) -> Bool {
        var current = URL(fileURLWithPath: path).standardizedFileURL
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path) else { return false }
            current = URL(fileURLWithPath: target, relativeTo: current.deletingLastPathComponent()).standardizedFileURL
            let text = current.path
            if text.hasPrefix("/proc/") || (text.hasPrefix("/dev/") && !text.hasPrefix("/dev/shm/")) { return true }
        }
        return true  // a loop, or a chain longer than the kernel follows: not a file to replace
    }

    /// The longest `--timeout` taken, in seconds: a year.
    static let maximumTimeout: Double = 365 * 24 * 3600

    /// The response limits the transports enforce: `--max-size`'s, or Net's defaults.
    var responseLimits: ResponseLimits {
        switch maxSize {
        case nil: ResponseLimits()
        case .unlimited?: .unlimited
        case .bytes(let bytes)?: ResponseLimits(maximumInMemoryBodySize: bytes, decompression: .size(bytes))
        }
    }

    /// The request the arguments describe.
    func plan(method: NetworkHttpMethod) throws -> RequestPlan {
        try RequestPlan(
            method: method, url: url, items: items.map(RequestItem.init(parsing:)), form: form, bearer: bearer,
            timeout: timeout.map { .nanoseconds(Int64(($0 * 1e9).rounded())) })
    }
}

/// Which `Transport` sends the request.
public enum TransportChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `URLSessionTransport`.
    case urlsession
    /// `AsyncHTTPClientTransport`: faster on Linux (Docs/Transports.md).
    case ahc

    /// AsyncHTTPClient on Linux, URLSession elsewhere.
    public static var platformDefault: TransportChoice {
        #if os(Linux)
        .ahc
        #else
        .urlsession
        #endif
    }
}

/// `--max-size`: a byte count with an optional K, M or G suffix (powers of 1,024), or `none`.
enum SizeLimit: ExpressibleByArgument, Sendable, Equatable {
    case bytes(Int64)
    case unlimited

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        if text == "NONE" {
            self = .unlimited
            return
        }
        let shifts: [Character: Int64] = ["K": 10, "M": 20, "G": 30]
        let shift = text.last.flatMap { shifts[$0] } ?? 0
        let digits = shift == 0 ? Substring(text) : text.dropLast()
        guard let value = Int64(digits), value > 0, value <= Int64.max >> shift else { return nil }
        self = .bytes(value << shift)
    }
}

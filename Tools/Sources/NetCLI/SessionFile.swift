import Foundation
import Net

/// `--session FILE`, as in HTTPie: the headers given on earlier command lines and the cookies
/// servers set, kept in a JSON file (owner-only, 0600) and sent again by the next run that names
/// it. The file holds what you typed, credentials included (`--bearer`, `Authorization:`): it is
/// yours to protect, like a `.netrc`.
struct SessionFile: Codable, Equatable {
    /// Header fields as `[name, value]` pairs, in the order they were first given.
    var headers: [[String]] = []
    /// The cookie jar's cookies.
    var cookies: [NetworkCookie] = []

    /// Fields a session never keeps: they describe one request's body or condition.
    static func isPersisted(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return !lowered.hasPrefix("content-") && !lowered.hasPrefix("if-") && lowered != "cookie"
    }

    /// The largest session file read or written: 64 MiB, as for the library's jar files. A full
    /// jar (3,000 cookies of 4 KiB with 1 KiB paths, every `"`, `\` and `/` escaped, pretty-printed)
    /// takes about 32 MiB, so whatever servers set, a session `net` saved can be read again.
    static let maximumSize = 64 << 20

    /// Reads the file at `path`; a missing file is an empty session.
    static func load(_ path: String) throws -> SessionFile {
        guard let contents = try LocalFile.read(path, option: "--session", limit: maximumSize) else { return SessionFile() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let session = try decoder.decode(SessionFile.self, from: contents)
            guard session.headers.allSatisfy({ $0.count == 2 }) else { throw UsageError("each header must be a [name, value] pair") }
            return session
        } catch {
            throw UsageError("--session \(path) is not a session file net can read: \(error)")
        }
    }

    /// The session with this run's explicit fields: a name given now replaces its stored values.
    func merging(_ given: [NetworkHeader]) -> SessionFile {
        let kept = given.filter { Self.isPersisted($0.name) }
        let names = Set(kept.map { $0.name.lowercased() })
        var merged = self
        merged.headers = headers.filter { !names.contains($0[0].lowercased()) } + kept.map { [$0.name, $0.value] }
        return merged
    }

    /// Adds the stored fields the request does not already carry.
    func apply(to request: inout NetworkRequest) throws {
        for field in headers where !request.headers.contains(name: field[0]) {
            do { try request.headers.add(name: field[0], value: field[1]) } catch let error as NetworkError {
                throw UsageError("--session: \(error.description)")
            }
            // As on the run that stored it: a credential by its name stays one.
            if RequestPlan.namesACredential(field[0]) { request.secretHeaderNames.insert(field[0]) }
        }
    }

    /// Writes beside `path` and renames over it, owner-only.
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let staging = RequestOptions.stagingURL(beside: path, unique: "\(getpid())")
        // Created empty and owner-only, then written: the credentials are never in a file others
        // could read.
        let data = try encoder.encode(self)
        // Never a file the next run would refuse (load's limit); the old file stays as it was.
        guard data.count <= Self.maximumSize else {
            throw UsageError("--session: not saved: the session would take \(data.count) bytes, over \(Self.maximumSize)")
        }
        guard FileManager.default.createFile(atPath: staging.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let file = try? FileHandle(forWritingTo: staging), (try? file.write(contentsOf: data)) != nil,
              (try? file.synchronize()) != nil, (try? file.close()) != nil,  // on disk before the rename: a crash leaves the old file
              rename(staging.path, path) == 0 else {
            let reason = String(cString: strerror(errno))  // before the clean-up sets errno again
            try? FileManager.default.removeItem(at: staging)
            throw UsageError("--session: cannot write \(path): \(reason)")
        }
    }
}

import Foundation
import NetCore
import NetMultipart
import NetTestSupport
import Testing

@Suite("NetMultipart: framing, escaping and errors, checked with multipart-kit")
struct MultipartEncodingTests {
    @Test("the exact bytes of a small form: CRLF framing, closing delimiter, JSON and file types")
    func exactBytes() async throws {
        struct Profile: Codable, Sendable { var age: Int }
        let form = try NetworkMultipartForm(parts: [
            NetworkMultipartFormDataRequest(name: "title", value: "Ran"),
            NetworkMultipartFormJsonRequest(name: "profile", value: Profile(age: 7)),
            NetworkMultipartFormFileRequest(name: "image", filename: "p.png", value: Data([1, 2])),
        ], boundary: "B")
        let expected = "--B\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nRan\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"profile\"\r\nContent-Type: application/json\r\n\r\n{\"age\":7}\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}\u{2}\r\n"
            + "--B--\r\n"
        let data = try await form.encodedData()
        #expect(data == Data(expected.utf8))
        #expect(form.contentLength == Int64(data.count))
        #expect(form.contentType == "multipart/form-data; boundary=B")
    }

    @Test("hostile names and filenames are escaped as browsers do and parse back to that form")
    func hostileNames() async throws {
        let hostile = ["a\"b", "line\r\nContent-Type: text/evil", "back\\", "semi;colon=x", "ünï東🚀", "", "--B", "tab\there", "nul\u{0}"]
        let parts: [any NetworkMultipartFormDataConvertible] = hostile.map {
            NetworkMultipartFormFileRequest(name: $0, filename: $0, value: Data($0.utf8), contentType: "text/plain")
        }
        let form = try NetworkMultipartForm(parts: parts)
        let parsed = try parseWithMultipartKit(try await form.encodedData(), boundary: form.boundary)
        #expect(parsed.count == hostile.count)
        for (value, part) in zip(hostile, parsed) {
            let escaped = Self.browserEscaped(value)
            #expect(part.header("Content-Disposition") == "form-data; name=\"\(escaped)\"; filename=\"\(escaped)\"")
            #expect(part.headers.count == 2, "no injected header for \(value.debugDescription)")
            #expect(part.body == Data(value.utf8))
        }
    }

    static func browserEscaped(_ value: String) -> String {
        value.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": "%22"
            case "\r": "%0D"
            case "\n": "%0A"
            case "\t": "%09"
            case "\u{0}": "%00"
            default: String(scalar)
            }
        }.joined()
    }

    @Test("empty parts, binary bodies holding boundary-like lines, and 5,000 parts come back exactly")
    func edgeBodies() async throws {
        var generator = SeededGenerator(seed: 42)
        let tricky = Data("\r\n--NetFormBoundary\r\n--\r\n--x--\r\nContent-Disposition: form-data; name=\"evil\"\r\n\r\n".utf8)
        var bodies: [Data] = [Data(), tricky, Data([0x0d, 0x0a, 0x2d, 0x2d])]
        while bodies.count < 5_000 {
            bodies.append(Data((0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        let parts: [any NetworkMultipartFormDataConvertible] = bodies.enumerated().map {
            NetworkMultipartFormDataRequest(name: "part\($0.offset)", value: $0.element, contentType: "application/octet-stream")
        }
        let form = try NetworkMultipartForm(parts: parts)
        let data = try await form.encodedData()
        #expect(Int64(data.count) == form.contentLength)
        // Fed in odd and in large pieces, so delimiters straddle the parser's buffers.
        for chunkSize in [7, 65_536] {
            let parsed = try await parseOffPool(data, boundary: form.boundary, chunkSize: chunkSize)
            #expect(parsed.map(\.body) == bodies)
            #expect(parsed.map { $0.header("Content-Disposition") } == bodies.indices.map { "form-data; name=\"part\($0)\"" })
        }
    }

    @Test("chunks are full up to the last, at most the chunk size, and join to the form, a file on disk among its parts")
    func chunking() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SeededGenerator(seed: 7)
        let fileBytes = Data((0..<200_003).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let file = directory.appendingPathComponent("payload.bin")
        try fileBytes.write(to: file)
        let form = try NetworkMultipartForm(parts: [
            NetworkMultipartFormDataRequest(name: "before", value: "a field"),
            NetworkMultipartFormFileRequest(name: "file", fileURL: file),
            NetworkMultipartFormDataRequest(name: "after", value: Data(count: 70_000), contentType: "application/octet-stream"),
        ])
        for chunkSize in [3, 4_096, 65_536, 10_000_000] {
            var reader = form.bodyStream(chunkSize: chunkSize).makeReader()
            var chunks: [Data] = []
            while let chunk = try await reader.next() { chunks.append(chunk) }
            #expect(chunks.dropLast().allSatisfy { $0.count == chunkSize }, "chunk size \(chunkSize)")
            #expect((1...chunkSize).contains(chunks.last?.count ?? 0), "chunk size \(chunkSize)")
            let body = chunks.reduce(into: Data()) { $0.append($1) }
            #expect(Int64(body.count) == form.contentLength)
            let parsed = try await parseOffPool(body, boundary: form.boundary, chunkSize: 65_536)
            #expect(parsed.map(\.body) == [Data("a field".utf8), fileBytes, Data(count: 70_000)], "chunk size \(chunkSize)")
        }
    }

    @Test("extra Content-Disposition parameters and part headers are written, validated and never override Net's")
    func extras() async throws {
        let part = NetworkMultipartFormDataRequest(
            name: "n", value: "v",
            additionalContentDispositionParameters: [ContentDispositionParameter(name: "lang", value: "es\"x")],
            additionalHeaders: [.header(key: "X-Trace", value: "42")])
        let form = try NetworkMultipartForm(parts: [part])
        let parsed = try parseWithMultipartKit(try await form.encodedData(), boundary: form.boundary)
        #expect(parsed.first?.header("Content-Disposition") == "form-data; name=\"n\"; lang=\"es%22x\"")
        #expect(parsed.first?.header("X-Trace") == "42")

        let invalid: [any NetworkMultipartFormDataConvertible] = [
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalContentDispositionParameters: [ContentDispositionParameter(name: "bad name", value: "x")]),
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalHeaders: [.header(key: "X-Bad", value: "a\r\nb")]),
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalHeaders: [.header(key: "Content-Disposition", value: "form-data")]),
            NetworkMultipartFormFileRequest(name: "f", filename: "a.txt", value: Data(), contentType: "text/plain\r\nX: y"),
        ]
        // The errors Docs/Multipart.md's table names, case by case.
        func invalidHeader(_ error: any Error, named name: String? = nil, reason: NetworkError.InvalidHeaderReason? = nil) -> Bool {
            guard case NetworkError.request(.invalidHeader(let found, let why)) = error else { return false }
            return (name == nil || found == name) && (reason == nil || why == reason)
        }
        #expect { _ = try NetworkMultipartForm(parts: [invalid[0]]) } throws: { invalidHeader($0) }
        #expect { _ = try NetworkMultipartForm(parts: [invalid[1]]) } throws: { invalidHeader($0, named: "X-Bad") }
        #expect { _ = try NetworkMultipartForm(parts: [invalid[2]]) } throws: { invalidHeader($0, named: "Content-Disposition", reason: .reservedName) }
        #expect { _ = try NetworkMultipartForm(parts: [invalid[3]]) } throws: { invalidHeader($0) }
        func encodeError(_ error: any Error) -> Bool {
            guard case NetworkError.request(.encodeError) = error else { return false }
            return true
        }
        #expect { _ = try NetworkMultipartForm(parts: [], boundary: "bad\"boundary") } throws: { invalidHeader($0, named: "Content-Type") }
        #expect { _ = try NetworkMultipartForm(parts: [], boundary: String(repeating: "a", count: 71)) } throws: { encodeError($0) }
        // No part at all: RFC 2046 has no empty multipart body, and a bare `--B--` under a
        // multipart Content-Type is what ALTENNetwork sent (one of its defects).
        #expect { _ = try NetworkMultipartForm(parts: []) } throws: { encodeError($0) }
        #expect { _ = try NetworkRequest(url: "https://api.test/upload", multipartForm: []) } throws: { encodeError($0) }
        #expect {
            _ = try NetworkMultipartForm(parts: [NetworkMultipartFormDataRequest(name: "n", value: "x--B")], boundary: "B")
        } throws: { encodeError($0) }
    }

    @Test("a parameter given twice (name, filename or another) is a typed error; a boundary with tspecials is quoted and parses back; encodedData stops at its limit")
    func parametersBoundariesAndLimits() async throws {
        func encodeError(_ error: any Error) -> Bool {
            guard case NetworkError.request(.encodeError) = error else { return false }
            return true
        }
        let twice: [any NetworkMultipartFormDataConvertible] = [
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalContentDispositionParameters: [ContentDispositionParameter(name: "NAME", value: "admin")]),
            NetworkMultipartFormFileRequest(name: "f", filename: "a.txt", value: Data(),
                                            additionalContentDispositionParameters: [ContentDispositionParameter(name: "filename", value: "b.txt")]),
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalContentDispositionParameters: [
                ContentDispositionParameter(name: "lang", value: "es"), ContentDispositionParameter(name: "Lang", value: "en"),
            ]),
            // The same parameters to parsers that decode RFC 2231 (Werkzeug takes name* over name).
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalContentDispositionParameters: [ContentDispositionParameter(name: "name*", value: "admin")]),
            NetworkMultipartFormDataRequest(name: "n", value: "v", additionalContentDispositionParameters: [ContentDispositionParameter(name: "name*0", value: "ad")]),
            NetworkMultipartFormFileRequest(name: "f", filename: "a.txt", value: Data(),
                                            additionalContentDispositionParameters: [ContentDispositionParameter(name: "filename*", value: "evil.sh")]),
        ]
        for part in twice {
            #expect { _ = try NetworkMultipartForm(parts: [part]) } throws: { encodeError($0) }
        }
        // A boundary RFC 2046 allows but a bare parameter value cannot hold: quoted, whole.
        let spaced = try NetworkMultipartForm(parts: [NetworkMultipartFormDataRequest(name: "n", value: "v")], boundary: "a b/c")
        #expect(spaced.contentType == "multipart/form-data; boundary=\"a b/c\"")
        let parsed = try parseWithMultipartKit(try await spaced.encodedData(), boundary: "a b/c")
        #expect(parsed.count == 1)
        // Over the in-memory limit: a typed error, before any allocation.
        await #expect { _ = try await spaced.encodedData(upTo: 10) } throws: { encodeError($0) }
    }

    @Test("a form longer than Int64.max bytes (sparse files claim exabytes) is a typed error, not a trap")
    func overflowingLength() throws {
        // On tmpfs, which takes a sparse file of any size (ext4 stops at 16 TiB).
        let file = URL(fileURLWithPath: "/dev/shm/net-sparse-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(Int64.max / 2 + 1))  // two of them pass Int64.max
        try handle.close()
        let part = NetworkMultipartFormFileRequest(name: "f", fileURL: file)
        #expect {
            _ = try NetworkMultipartForm(parts: [part, part])
        } throws: { error in
            guard case NetworkError.request(.encodeError) = error else { return false }
            return true
        }
    }

    @Test("a file that holds a boundary of the caller's fails the body as it is read, wherever reads split the marker",
          arguments: [1, 3, 7, 64 * 1024])
    func fileHoldingTheBoundary(chunkSize: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-mp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let forged = directory.appendingPathComponent("forged.txt")
        try Data("before\r\n--B\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\ntrue".utf8).write(to: forged)
        let clean = directory.appendingPathComponent("clean.txt")
        try Data("-B -- B --b".utf8).write(to: clean)  // near misses only

        let failing = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "upload", fileURL: forged)], boundary: "B")
        var reader = failing.bodyStream(chunkSize: chunkSize).makeReader()
        await #expect {
            while try await reader.next() != nil {}
        } throws: { error in
            guard case NetworkError.request(.encodeError(let type, let description)) = error else { return false }
            return type.contains("upload") && description.contains("boundary")
        }

        let passing = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "upload", fileURL: clean)], boundary: "B")
        var body = Data()
        var cleanReader = passing.bodyStream(chunkSize: chunkSize).makeReader()
        while let chunk = try await cleanReader.next() { body.append(chunk) }
        #expect(body.count == passing.contentLength)
        #expect(try parseWithMultipartKit(body, boundary: "B").count == 1)
    }

    @Test("random boundaries carry 128 bits and differ")
    func boundaries() {
        let boundaries = (0..<100).map { _ in NetworkMultipartForm.randomBoundary() }
        #expect(Set(boundaries).count == 100)
        #expect(boundaries.allSatisfy { $0.hasPrefix("NetFormBoundary") && $0.count == "NetFormBoundary".count + 32 })
    }

    @Test("content types are inferred from extensions, case-insensitively, and can be overridden")
    func mediaTypes() throws {
        #expect(MediaTypes.type(forFilename: "photo.JPG") == "image/jpeg")
        #expect(MediaTypes.type(forFilename: "archive.tar.gz") == "application/gzip")
        #expect(MediaTypes.type(forFilename: "README") == "application/octet-stream")
        #expect(MediaTypes.type(forFilename: ".bashrc") == "application/octet-stream")
        let part = try NetworkMultipartFormFileRequest(name: "f", filename: "data.csv", value: Data(), contentType: "text/x-custom").multipartPart()
        #expect(part.contentType == "text/x-custom")
    }

    @Test("a missing file, an unreadable file and a file that changes size are typed errors")
    func fileErrors() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func unreadable(_ error: any Error, path: String) -> Bool {
            guard case NetworkError.request(.unreadableBodyFile(let found, _)) = error else { return false }
            return found == path
        }
        let missing = directory.appendingPathComponent("missing")
        #expect { _ = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "f", fileURL: missing)]) } throws: {
            unreadable($0, path: missing.path)
        }
        #expect { _ = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "f", fileURL: directory)]) } throws: {
            unreadable($0, path: directory.path)
        }
        for (initial, changed) in [(100_000, 50_000), (100_000, 150_000)] {
            let file = directory.appendingPathComponent("changing-\(changed)")
            try Data(count: initial).write(to: file)
            let form = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "f", fileURL: file)])
            try Data(count: changed).write(to: file)
            await #expect { _ = try await form.encodedData() } throws: { unreadable($0, path: file.path) }
        }
    }

    @Test("a multipart stream asked for chunks of Int.max bytes makes chunks of at most 16 MiB", .timeLimit(.minutes(3)))
    func multipartChunkSize() async throws {
        let form = try NetworkMultipartForm(parts: [
            NetworkMultipartFormFileRequest(name: "f", filename: "f.bin", value: Data(count: 40 << 20)),
        ])
        var largest = 0
        var total = 0
        var reader = form.bodyStream(chunkSize: .max).makeReader()
        while let chunk = try await reader.next() {
            largest = max(largest, chunk.count)
            total += chunk.count
        }
        #expect(largest == NetworkMultipartForm.largestChunkSize)
        #expect(Int64(total) == form.contentLength)
    }
}

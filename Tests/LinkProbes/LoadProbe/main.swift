// Sends REQUESTS GETs with IN_FLIGHT at a time through one NetworkClient on URLSessionTransport to
// an in-process keep-alive server (FaultServer's /ok route), and prints one JSON line: failures,
// and resident memory, descriptors and threads when 10 %, 50 % and 100 % of the requests are done.
// A process of its own, so nothing else moves those figures.
//
//   LoadProbe REQUESTS IN_FLIGHT
import Foundation
import NetCore
import NetTransport
import Synchronization

struct Sample: Encodable {
    /// `sockets`: how many of the descriptors are sockets (connections come and go with load).
    let done: Int, residentKB: Int, descriptors: Int, sockets: Int, threads: Int

    static func now(done: Int) -> Sample {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") } ?? -1
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let sockets = entries.filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry))?.hasPrefix("socket:") ?? false
        }.count
        return Sample(done: done, residentKB: field("VmRSS"), descriptors: entries.isEmpty ? -1 : entries.count, sockets: sockets, threads: field("Threads"))
    }
}

/// What the workers share.
final class LoadState: Sendable {
    let next = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let failures = Mutex<(count: Int, first: String?)>((0, nil))
    let samples = Mutex<[Sample]>([])
}

struct Report: Encodable {
    let requests: Int, inFlight: Int, failures: Int, firstFailure: String?, samples: [Sample]
}

func run() async -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let total = Int(arguments[1]), let inFlight = Int(arguments[2]), total >= 10, inFlight > 0 else {
        FileHandle.standardError.write(Data("usage: LoadProbe REQUESTS IN_FLIGHT\n".utf8))
        return 2
    }
    let client = NetworkClient(transport: URLSessionTransport(configuration: .init(maximumConnectionsPerHost: inFlight)))
    let url = FaultServer.shared.baseURL + "/ok?size=512"
    let progress = LoadState()
    let checkpoints = Set([total / 10, total / 2, total])
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<inFlight {
            group.addTask {
                while progress.next.add(1, ordering: .relaxed).oldValue < total {
                    do {
                        let response = try await client.requestData(for: url)
                        if response.statusCode != 200 || response.data.count != 512 {
                            progress.failures.withLock { $0.count += 1; $0.first = $0.first ?? "\(response)" }
                        }
                    } catch {
                        progress.failures.withLock { $0.count += 1; $0.first = $0.first ?? "\(error)" }
                    }
                    let done = progress.completed.add(1, ordering: .relaxed).newValue
                    if checkpoints.contains(done) {
                        let sample = Sample.now(done: done)
                        progress.samples.withLock { $0.append(sample) }
                    }
                }
            }
        }
    }
    let (count, first) = progress.failures.withLock { $0 }
    let report = Report(requests: total, inFlight: inFlight, failures: count, firstFailure: first,
                        samples: progress.samples.withLock { $0 }.sorted { $0.done < $1.done })
    guard let json = try? JSONEncoder().encode(report) else { return 1 }
    print(String(decoding: json, as: UTF8.self))
    return 0
}

exit(await run())

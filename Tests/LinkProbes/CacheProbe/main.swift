// Fetches one URL through a NetworkClient with a disk cache in DIRECTORY and prints where the
// response came from and its body: `network|cache|revalidated BODY`. The tests run it twice, as two
// processes, to show that the disk cache survives a restart.
//
//   CacheProbe DIRECTORY URL
import Foundation
import NetCore
import NetTransport

func run() async -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let url = URL(string: arguments[2]) else {
        FileHandle.standardError.write(Data("usage: CacheProbe DIRECTORY URL\n".utf8))
        return 2
    }
    do {
        let cache = try HTTPCache.disk(directory: URL(fileURLWithPath: arguments[1]))
        let client = NetworkClient(transport: URLSessionTransport(), cache: cache)
        let response = try await client.requestData(for: url)
        print("\(response.response.cacheStatus) \(String(decoding: response.data, as: UTF8.self))")
        return 0
    } catch {
        FileHandle.standardError.write(Data("CacheProbe: \(error)\n".utf8))
        return 1
    }
}

exit(await run())

// Sends one GET through URLSessionTransport and prints how it ended. The fault tests run it as a
// child process for the one fault that stops a process inside FoundationNetworking (a server
// closing inside the header block), so the test process survives to check that it still does.
//
//   URLSessionFaultProbe URL
import Foundation
import NetCore
import NetTransport

func run() async -> Int32 {
    guard CommandLine.arguments.count == 2 else {
        FileHandle.standardError.write(Data("usage: URLSessionFaultProbe URL\n".utf8))
        return 2
    }
    do {
        let response = try await URLSessionTransport().send(try NetworkRequest(url: CommandLine.arguments[1], timeout: .seconds(5)))
        print("response \(response.head.statusCode) \(response.body.count) bytes")
        return 0
    } catch {
        print("error \(error)")
        return 0
    }
}

exit(await run())

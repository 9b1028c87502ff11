import Foundation
import NetCLI

// `CommandLine.arguments` decodes each argument, replacing bytes that are not UTF-8 with U+FFFD,
// so a file name or a value would change without a word: such an argument is a usage error.
let rawArguments = stride(from: 1, to: Int(CommandLine.argc), by: 1).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
}
if let message = NetCommand.nonUTF8ArgumentMessage(rawArguments) {
    FileHandle.standardError.write(Data("net: \(message)\n".utf8))
    exit(2)
}
exit(await NetCommand.run(Array(CommandLine.arguments.dropFirst())))

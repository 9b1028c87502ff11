import ArgumentParser
import Foundation
import Net

/// The `net` command: HTTP verbs in the spirit of HTTPie, and `reach`.
public struct NetCommand: AsyncParsableCommand {
    /// The command's name, help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "net",
        abstract: "HTTP requests and network reachability, built on the Net library.",
        discussion: """
            Exit status: 0 for a response from 100 to 399, 4 for a 4xx response, 5 for a 5xx response, 1 \
            when the request could not be sent or answered (refused, timed out…), the status is outside \
            100–599 or the output could not be written, 2 for a mistake on the command line.
            """,
        subcommands: [
            VerbCommand<GetVerb>.self, VerbCommand<PostVerb>.self, VerbCommand<PutVerb>.self,
            VerbCommand<PatchVerb>.self, VerbCommand<DeleteVerb>.self, VerbCommand<HeadVerb>.self,
            VerbCommand<OptionsVerb>.self, ReachCommand.self,
        ])

    /// Creates the command.
    public init() {}

    /// The usage error for the first argument (after the program's name) whose bytes are not
    /// UTF-8, which `CommandLine.arguments` would hand over altered; `nil` when all are.
    public static func nonUTF8ArgumentMessage(_ arguments: [[UInt8]]) -> String? {
        guard let index = arguments.firstIndex(where: { String(validating: $0, as: UTF8.self) == nil }) else { return nil }
        return "argument \(index + 1) (\(String(decoding: arguments[index], as: UTF8.self))) is not UTF-8: net would send or name something else"
    }

    /// Parses `arguments` (without the program name), runs the command, and returns the exit
    /// status, having printed any error as one line on standard error.
    public static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return ExitStatus.success.rawValue
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch let error as UsageError {
            Output.error("net: \(error)\n")
            return ExitStatus.usage.rawValue
        } catch let error as NetworkError {
            Output.error("net: \(error)\n")
            return ExitStatus.transportFailure.rawValue
        } catch let error as ReachabilityError {
            Output.error("net: \(error)\n")
            return ExitStatus.transportFailure.rawValue
        } catch let error as OutputError {
            Output.error("net: \(error)\n")
            return ExitStatus.transportFailure.rawValue
        } catch {
            // ArgumentParser's own: help and version are successes, the rest usage errors.
            if exitCode(for: error) == .success {
                do {
                    try Output.write(fullMessage(for: error) + "\n")
                } catch {
                    Output.error("net: \(error)\n")
                    return ExitStatus.transportFailure.rawValue
                }
                return ExitStatus.success.rawValue
            }
            let message = self.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
            Output.error("net: \(message) (see `net --help`)\n")
            return ExitStatus.usage.rawValue
        }
    }
}

/// A mistake in the command line: `net` prints it on one line and exits with status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// What was wrong and, where it helps, what to write instead.
    public let description: String

    /// Wraps a message.
    public init(_ description: String) { self.description = description }
}

/// Why `net` stopped, and the status it exits with.
public enum ExitStatus: Int32, Sendable {
    /// The exchange succeeded (a status from 100 to 399).
    case success = 0
    /// The request could not be sent or its response not read (refused, timed out, reset…), the
    /// response was not valid HTTP (a status outside 100–599), or standard output could not be
    /// written.
    case transportFailure = 1
    /// The command line was wrong.
    case usage = 2
    /// The server answered 4xx.
    case clientError = 4
    /// The server answered 5xx.
    case serverError = 5

    /// The status for a response's HTTP status code; a code outside 100–599 is a protocol error.
    public init(statusCode: Int) {
        switch statusCode {
        case 100..<400: self = .success
        case 400..<500: self = .clientError
        case 500..<600: self = .serverError
        default: self = .transportFailure
        }
    }
}

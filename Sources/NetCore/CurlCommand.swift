#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A curl invocation: its arguments, and the bytes to pipe into it when the body is binary.
///
/// ``shellCommand`` renders it for any POSIX shell: every argument is single-quoted, so no URL,
/// header or body can run a command, expand a variable or split an argument. Binary bodies (and
/// text with control or invisible formatting characters) are piped in through `printf` with octal
/// escapes, which keeps every byte, NUL included, and keeps the command printable.
public struct CurlCommand: Sendable, Hashable, CustomStringConvertible {
    /// The arguments after `curl`, exactly as curl should receive them.
    public let arguments: [String]
    /// Bytes for curl's standard input (`--data-binary @-`), for binary bodies.
    public let standardInput: Data?
    /// A note appended as a shell comment, such as for a streamed body that cannot be shown.
    public let note: String?

    /// Creates a command.
    public init(arguments: [String], standardInput: Data? = nil, note: String? = nil) {
        self.arguments = arguments
        self.standardInput = standardInput
        self.note = note
    }

    /// The command for a POSIX shell (`sh`, `bash`, `zsh`, `dash`), on one line.
    public var shellCommand: String {
        var command = (["curl"] + arguments.map(Self.shellQuoted)).joined(separator: " ")
        if let standardInput {
            command = "printf \(Self.printfFormat(for: standardInput)) | " + command
        }
        if let note {
            command += " # " + String(String.UnicodeScalarView(note.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }))
        }
        return command
    }

    /// ``shellCommand``.
    public var description: String { shellCommand }

    /// Single-quotes `argument`: inside single quotes a POSIX shell gives every character its
    /// literal meaning, so only the quote itself needs care (`'` becomes `'\''`). Option flags
    /// such as `-X` or `--data-raw` hold no shell metacharacters and stay bare for readability.
    public static func shellQuoted(_ argument: String) -> String {
        if isBareOption(argument) { return argument }
        return "'" + argument.replacingScalars("'", with: "'\\''") + "'"
    }

    /// `-X`, `--data-raw`: a dash, letters and dashes only.
    private static func isBareOption(_ argument: String) -> Bool {
        let bytes = Array(argument.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: "-") || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// A single-quoted `printf` format that prints exactly `bytes`: printable ASCII stays as it is;
    /// every other byte, `'`, `\`, `%` and a leading `-` become three-digit octal escapes.
    static func printfFormat(for bytes: Data) -> String {
        var format = "'"
        format.reserveCapacity(bytes.count * 2 + 2)
        for (offset, byte) in bytes.enumerated() {
            // A leading `-` would make printf read the format as an option.
            let isPlain = (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "'")
                && !(offset == 0 && byte == UInt8(ascii: "-"))
                && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "%")
            if isPlain {
                format.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let octal = String(byte, radix: 8)
                format += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return format + "'"
    }
}

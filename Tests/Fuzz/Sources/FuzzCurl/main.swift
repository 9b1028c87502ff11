#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FuzzSupport
import NetCore

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzCurl_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// A request built from the input (URL, one header, a text body): its curl command, read back by
/// a POSIX single-quote reader written here, gives exactly the arguments curl should receive, so
/// no input can add an argument or a command; redacted output never shows the credential.
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let secret = "s3cr3t-" + input[3]
    guard let request = try? NetworkRequest(
        url: "https://example.com/" + input[0].filter { $0.isASCII && !$0.isWhitespace },
        httpMethod: .post,
        headers: [.header(key: "X-Note", value: input[1]), .header(key: "Authorization", value: "Bearer " + secret)],
        query: [.query(key: "q", value: input[2])],
        httpBody: input[4].isEmpty ? nil : Data(input[4].utf8)
    ) else { return 0 }
    let unredacted = request.curlCommand(.unredacted)
    fuzzCheck(unredacted.note == nil, "an in-memory body needs no note")
    let words = shellWords(unredacted.shellCommand)
    let expected = ["curl"] + unredacted.arguments
    let command = unredacted.standardInput == nil ? words : Array(words.drop { $0 != "|" }.dropFirst())
    fuzzCheck(command == expected, "shell words \(command) differ from \(expected)")
    let redacted = request.curlCommand().shellCommand
    fuzzCheck(secret.count < 12 || !redacted.contains(secret), "the credential shows in a redacted command")
    return 0
}

/// The words a POSIX shell makes of a line of bare words, single-quoted words and `\'` escapes,
/// read here independently of the code under test; an unquoted metacharacter or an unterminated
/// quote fails the check.
func shellWords(_ line: String) -> [String] {
    var words: [String] = []
    var current = "", inWord = false, quoted = false, escaped = false
    // A shell reads bytes: a quote followed by a combining mark is still a quote, so scalars, not
    // Characters (which would merge the two), are what to walk.
    for scalar in line.unicodeScalars {
        let character = Character(scalar)
        if quoted {
            if character == "'" { quoted = false } else { current.unicodeScalars.append(scalar) }
            continue
        }
        if escaped {
            current.unicodeScalars.append(scalar)
            escaped = false
            continue
        }
        switch character {
        case "'": quoted = true; inWord = true
        case "\\": escaped = true; inWord = true
        case " ":
            if inWord { words.append(current) }
            current = ""
            inWord = false
        default:
            // `|` appears only as the word joining `printf` to curl.
            fuzzCheck(!";&<>()$`\"*?[]{}~#\n\t".contains(character), "bare metacharacter \(character) in \(line)")
            current.unicodeScalars.append(scalar)
            inWord = true
        }
    }
    fuzzCheck(!quoted && !escaped, "unterminated quote in \(line)")
    if inWord { words.append(current) }
    return words
}

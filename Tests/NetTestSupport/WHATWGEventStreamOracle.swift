/// The WHATWG HTML standard's "Parsing an event stream" and "Interpreting an event stream",
/// transcribed as literally as possible over the whole stream at once (decode, strip one BOM,
/// split lines, process fields, dispatch), as the reference a streaming decoder must agree with.
/// Self-contained (the standard library only): the fuzz target links this file too.
package enum WHATWGEventStreamOracle {
    package static func events(_ bytes: [UInt8]) -> [(type: String, data: String, lastEventID: String)] {
        var scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\r" || scalar == "\n" {
                lines.append(String(current))
                current = String.UnicodeScalarView()
                if scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
            } else {
                current.append(scalar)
            }
            index += 1
        }
        // "Once the end of the file is reached, any pending data must be discarded."
        var found: [(type: String, data: String, lastEventID: String)] = []
        var data = "", eventType = "", lastEventIDBuffer = "", lastEventID = ""
        for line in lines {
            if line.isEmpty {
                lastEventID = lastEventIDBuffer
                if data.isEmpty { eventType = ""; continue }
                if data.hasSuffix("\n") { data.removeLast() }
                found.append((eventType.isEmpty ? "message" : eventType, data, lastEventID))
                data = ""
                eventType = ""
                continue
            }
            if line.unicodeScalars.first == ":" { continue }
            var field = line, value = ""
            if let colon = line.unicodeScalars.firstIndex(of: ":") {
                field = String(line.unicodeScalars[..<colon])
                var rest = line.unicodeScalars[line.unicodeScalars.index(after: colon)...]
                if rest.first == " " { rest = rest.dropFirst() }
                value = String(rest)
            }
            switch field {
            case "event": eventType = value
            case "data": data += value + "\n"
            case "id": if !value.unicodeScalars.contains("\u{0}") { lastEventIDBuffer = value }
            default: break  // retry changes no event; unknown fields are ignored
            }
        }
        return found
    }
}

/// One `KEY<separator>VALUE` argument after the URL, in the spirit of HTTPie.
///
/// The earliest unescaped separator decides the kind; where two start at the same place the
/// longer wins (`a:=1` is JSON, not a header). A backslash makes the next `:`, `=`, `@` or `\`
/// literal, so `a\=b=c` is the field `a=b` with the value `c`.
public enum RequestItem: Sendable, Hashable {
    /// `Name:value`: a request header.
    case header(name: String, value: String)
    /// `name==value`: a query parameter.
    case query(key: String, value: String)
    /// `field=value`: a string field of the JSON object (or of the form with `--form`).
    case field(name: String, value: String)
    /// `field:=json`: a field whose value is raw JSON.
    case jsonField(name: String, json: String)
    /// `field@path`: a file sent as a multipart part.
    case file(name: String, path: String)

    /// Separators, longest first so that a tie at one position picks the longer.
    private static let separators = [":=", "==", "=", ":", "@"]

    /// Parses one item.
    ///
    /// - Throws: ``UsageError`` when the item has no separator or an empty key.
    public init(parsing argument: String) throws {
        var key = ""
        var characters = argument[...]
        while let character = characters.first {
            if character == "\\", let next = characters.dropFirst().first, ":=@\\".contains(next) {
                key.append(next)
                characters = characters.dropFirst(2)
                continue
            }
            if let separator = Self.separators.first(where: { characters.hasPrefix($0) }) {
                let value = String(characters.dropFirst(separator.count))
                guard !key.isEmpty else {
                    throw UsageError("item \"\(argument)\" has nothing before \"\(separator)\"")
                }
                switch separator {
                case ":=": self = .jsonField(name: key, json: value)
                case "==": self = .query(key: key, value: value)
                case "=": self = .field(name: key, value: value)
                case ":": self = .header(name: key, value: value)
                default: self = .file(name: key, path: value)
                }
                return
            }
            key.append(character)
            characters = characters.dropFirst()
        }
        throw UsageError("item \"\(argument)\" is not Header:value, name==query, field=value, field:=json or field@file")
    }
}

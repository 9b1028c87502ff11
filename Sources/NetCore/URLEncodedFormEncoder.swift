#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes an `Encodable` value as form fields (`application/x-www-form-urlencoded` bodies, or
/// query parameters), with the choices Alamofire's `URLEncodedFormEncoder` offers. The value must
/// encode as an object (a struct or class with keys, or a dictionary with `String` keys).
///
/// | Value | Default encoding | Options |
/// | --- | --- | --- |
/// | nested object `a: {b: 1}` | `a[b]=1` | ``NestingEncoding/dots``: `a.b=1` |
/// | array `a: [1, 2]` | `a[]=1&a[]=2` | ``ArrayEncoding/noBrackets``: `a=1&a=2`; ``ArrayEncoding/indexInBrackets``: `a[0]=1&a[1]=2` |
/// | `Bool` | `1` / `0` | ``BoolEncoding/literal``: `true` / `false` |
/// | `Date` | what `Date` encodes itself as (seconds since 2001-01-01) | seconds or milliseconds since 1970, ISO 8601, your own |
/// | `Data` | Base64 | — |
/// | `URL` | its absolute string | — |
/// | `nil` optional | left out | — |
/// | empty array or object | left out | — |
/// | numbers | Swift's `description` (`1.5`, `-3`, `1e+20`) | — |
///
/// Keys keep the value's order (a dictionary's order is its own: use a struct for a fixed order).
/// The fields are serialized by ``URLEncodedForm``.
///
/// ```swift
/// struct Search: Encodable { let q: String; let tags: [String]; let page: Int; let exact: Bool }
/// let fields = try URLEncodedFormEncoder().encode(Search(q: "swift nio", tags: ["linux", "server"], page: 2, exact: true))
/// // URLEncodedForm.serialize(fields) == "q=swift+nio&tags%5B%5D=linux&tags%5B%5D=server&page=2&exact=1"
/// ```
public struct URLEncodedFormEncoder: Sendable {
    /// How an array's elements are named.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `a[]=1&a[]=2` (Rails, PHP; the default).
        case brackets
        /// `a=1&a=2` (Go, Python, Java servlets).
        case noBrackets
        /// `a[0]=1&a[1]=2`.
        case indexInBrackets
    }

    /// How a nested object's keys are named.
    public enum NestingEncoding: Sendable, Hashable {
        /// `a[b]=1` (the default).
        case brackets
        /// `a.b=1`.
        case dots
    }

    /// How a `Bool` is written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// How a `Date` is written.
    public enum DateEncoding: Sendable {
        /// What `Date` encodes itself as: seconds since 2001-01-01 (the default).
        case deferredToDate
        /// Seconds since 1970-01-01, as a number.
        case secondsSince1970
        /// Whole milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// ISO 8601 in UTC, to the second: `2026-11-23T04:15:00Z`.
        case iso8601
        /// Your own text.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How keys are written.
    public enum KeyEncoding: Sendable, Hashable {
        /// As the value names them (the default).
        case useDefaultKeys
        /// `camelCase` as `camel_case`, as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` does.
        case convertToSnakeCase
    }

    /// How arrays are named; ``ArrayEncoding/brackets`` by default.
    public var arrayEncoding: ArrayEncoding
    /// How nested objects are named; ``NestingEncoding/brackets`` by default.
    public var nestingEncoding: NestingEncoding
    /// How booleans are written; ``BoolEncoding/numeric`` by default.
    public var boolEncoding: BoolEncoding
    /// How dates are written; ``DateEncoding/deferredToDate`` by default.
    public var dateEncoding: DateEncoding
    /// How keys are written; ``KeyEncoding/useDefaultKeys`` by default.
    public var keyEncoding: KeyEncoding

    /// Creates an encoder; every choice defaults to Alamofire's default.
    public init(
        arrayEncoding: ArrayEncoding = .brackets,
        nestingEncoding: NestingEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        dateEncoding: DateEncoding = .deferredToDate,
        keyEncoding: KeyEncoding = .useDefaultKeys
    ) {
        self.arrayEncoding = arrayEncoding
        self.nestingEncoding = nestingEncoding
        self.boolEncoding = boolEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
    }

    /// The fields `value` encodes to, in order. Throws
    /// ``NetworkError/RequestFailure/encodeError(type:description:)`` when `value` is not an
    /// object, or when its own encoding (or a custom date encoding) throws.
    public func encode<T: Encodable>(_ value: T) throws -> [(name: String, value: String)] {
        let root = FormNode()
        do {
            try FormEncoding(node: root, options: self, codingPath: []).encodeValue(value)
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError.request(.encodeError(type: String(describing: T.self), description: "\(error)"))
        }
        guard case .object(let object) = root.kind else {
            throw NetworkError.request(.encodeError(type: String(describing: T.self), description: "a form needs named fields: encode a struct, a class or a [String: …] dictionary, not a single value or an array"))
        }
        var fields: [(name: String, value: String)] = []
        for (key, child) in object.entries { flatten(child, name: key, into: &fields) }
        return fields
    }

    private func flatten(_ node: FormNode, name: String, into fields: inout [(name: String, value: String)]) {
        switch node.kind {
        case .unset, .null:
            break
        case .value(let text):
            fields.append((name, text))
        case .object(let object):
            for (key, child) in object.entries {
                flatten(child, name: nestingEncoding == .brackets ? "\(name)[\(key)]" : "\(name).\(key)", into: &fields)
            }
        case .array(let array):
            for (index, child) in array.items.enumerated() {
                let element = switch arrayEncoding {
                case .brackets: "\(name)[]"
                case .noBrackets: name
                case .indexInBrackets: "\(name)[\(index)]"
                }
                flatten(child, name: element, into: &fields)
            }
        }
    }

    /// `key` as ``keyEncoding`` writes it: words split where a lower-case letter or digit meets an
    /// upper-case one, or where an acronym ends (`myURLValue` → `my_url_value`).
    func encodedKey(_ key: String) -> String {
        guard keyEncoding == .convertToSnakeCase else { return key }
        let characters = Array(key)
        var output = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    output.append("_")
                }
            }
            output += character.lowercased()
        }
        return output
    }
}

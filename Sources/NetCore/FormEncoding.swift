#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value being encoded as form fields: a tree that ``URLEncodedFormEncoder`` flattens into
/// names like `a[b][]`. A reference, because `Encoder` containers write into it after they are
/// handed out.
final class FormNode {
    enum Kind {
        case unset
        case null
        case value(String)
        case object(FormObject)
        case array(FormArray)
    }

    var kind: Kind = .unset

    /// This node as an object, making it one if it is not yet set.
    func object() -> FormObject {
        if case .object(let object) = kind { return object }
        let object = FormObject()
        kind = .object(object)
        return object
    }

    /// This node as an array, making it one if it is not yet set.
    func array() -> FormArray {
        if case .array(let array) = kind { return array }
        let array = FormArray()
        kind = .array(array)
        return array
    }
}

/// An object's fields, in the order they were encoded.
final class FormObject {
    private(set) var entries: [(String, FormNode)] = []
    private var positions: [String: Int] = [:]

    /// The node for `key`: the one already there (encoding a key twice, or two keys that the
    /// key encoding makes equal, writes into the same node), or a new one.
    func node(for key: String) -> FormNode {
        if let position = positions[key] { return entries[position].1 }
        let node = FormNode()
        positions[key] = entries.count
        entries.append((key, node))
        return node
    }
}

/// An array's elements, in order.
final class FormArray {
    private(set) var items: [FormNode] = []

    func append() -> FormNode {
        let node = FormNode()
        items.append(node)
        return node
    }
}

/// The `Encoder` behind ``URLEncodedFormEncoder``: writes one value into `node`.
struct FormEncoding: Encoder {
    let node: FormNode
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FormKeyedContainer<Key>(object: node.object(), options: options, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FormUnkeyedContainer(array: node.array(), options: options, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Writes `value`, handling the types whose own encoding is not what a form wants.
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let date as Date: node.kind = .value(try text(for: date))
        case let data as Data: node.kind = .value(data.base64EncodedString())
        case let url as URL: node.kind = .value(url.absoluteString)
        case let decimal as Decimal: node.kind = .value("\(decimal)")
        default: try value.encode(to: self)
        }
    }

    /// `date`, if in years 1 to 9999, as ISO 8601 writes them: beyond, its milliseconds would not
    /// fit an Int64 and Foundation's formatting traps (on not a number, or 1e300 s).
    private static func writable(_ date: Date, codingPath: [any CodingKey]) throws -> Date {
        guard (-62_135_596_800...253_402_300_799).contains(date.timeIntervalSince1970) else {
            // The value in the error is the number, not the `Date`: describing such a `Date` traps.
            throw EncodingError.invalidValue(date.timeIntervalSince1970, EncodingError.Context(
                codingPath: codingPath, debugDescription: "a date outside years 1 to 9999 (\(date.timeIntervalSince1970) s since 1970)"))
        }
        return date
    }

    private func text(for date: Date) throws -> String {
        switch options.dateEncoding {
        case .deferredToDate: "\(date.timeIntervalSinceReferenceDate)"
        case .secondsSince1970: "\(date.timeIntervalSince1970)"
        case .millisecondsSince1970: "\(Int64((try Self.writable(date, codingPath: codingPath).timeIntervalSince1970 * 1_000).rounded(.down)))"
        case .iso8601: try Self.writable(date, codingPath: codingPath).formatted(.iso8601)
        case .custom(let format): try format(date)
        }
    }
}

extension FormEncoding: SingleValueEncodingContainer {
    func encodeNil() throws { node.kind = .null }
    func encode(_ value: Bool) throws {
        node.kind = .value(options.boolEncoding == .numeric ? (value ? "1" : "0") : (value ? "true" : "false"))
    }
    func encode(_ value: String) throws { node.kind = .value(value) }
    func encode(_ value: Double) throws { node.kind = .value("\(value)") }
    func encode(_ value: Float) throws { node.kind = .value("\(value)") }
    func encode(_ value: Int) throws { node.kind = .value("\(value)") }
    func encode(_ value: Int8) throws { node.kind = .value("\(value)") }
    func encode(_ value: Int16) throws { node.kind = .value("\(value)") }
    func encode(_ value: Int32) throws { node.kind = .value("\(value)") }
    func encode(_ value: Int64) throws { node.kind = .value("\(value)") }
    func encode(_ value: UInt) throws { node.kind = .value("\(value)") }
    func encode(_ value: UInt8) throws { node.kind = .value("\(value)") }
    func encode(_ value: UInt16) throws { node.kind = .value("\(value)") }
    func encode(_ value: UInt32) throws { node.kind = .value("\(value)") }
    func encode(_ value: UInt64) throws { node.kind = .value("\(value)") }
    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

/// Fields of an object.
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: FormObject
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    private func encoding(_ key: Key) -> FormEncoding {
        FormEncoding(node: object.node(for: options.encodedKey(key.stringValue)), options: options, codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try encoding(key).encodeNil() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoding(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoding(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { encoding(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { FormEncoding(node: object.node(for: "super"), options: options, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoding(key) }
}

/// Elements of an array.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let array: FormArray
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    var count: Int { array.items.count }

    private func next() -> FormEncoding {
        FormEncoding(node: array.append(), options: options, codingPath: codingPath)
    }

    mutating func encodeNil() throws { try next().encodeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Public keys a host's certificate must have, as curl's `--pinnedpubkey sha256//…` and HPKP
/// spell them: the SHA-256 of the certificate's SubjectPublicKeyInfo (DER), in base64.
///
/// A connection to a pinned host succeeds only when its certificate passes the usual checks
/// (chain to a trusted root, host name, dates) *and* its public key is one of the host's pins;
/// otherwise it fails with ``NetworkError/TransportFailure/publicKeyPinMismatch(host:)`` before
/// any request byte is sent. Several pins per host allow a key rotation: pin the current and the
/// next key. Hosts without pins are not affected. Get a server's pin with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public struct PublicKeyPins: Sendable, Hashable {
    /// Host (lower-case, or `*`) → accepted SHA-256 digests.
    private var digests: [String: Set<[UInt8]>] = [:]

    /// No pins.
    public init() {}

    /// Whether no host is pinned.
    public var isEmpty: Bool { digests.isEmpty }

    /// The hosts with pins, `*` standing for every host.
    public var hosts: [String] { digests.keys.sorted() }

    /// Pins `host` (a name or IP address; `*` pins every host, as curl's option does) to the keys
    /// in `pins`: curl's syntax, `sha256//BASE64` entries separated by `;`. Adds to the host's
    /// earlier pins.
    ///
    /// - Throws: ``NetworkError/TransportFailure/invalidTLSSettings(_:)`` when an entry is not a
    ///   `sha256//` pin of 32 bytes in base64 (curl's file form of the option is not accepted).
    public mutating func pin(host: String, _ pins: String) throws(NetworkError) {
        var accepted = Set<[UInt8]>()
        for entry in pins.split(separator: ";") {
            let text = NetworkHeader.trimmingOptionalWhitespace(String(entry))
            guard text.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(text.dropFirst(8))), digest.count == 32 else {
                throw .transport(.invalidTLSSettings("\(text) is not a public-key pin: expected sha256// and the base64 of a SHA-256 digest"))
            }
            accepted.insert(Array(digest))
        }
        guard !accepted.isEmpty else { throw .transport(.invalidTLSSettings("no public-key pin given for \(host)")) }
        digests[Self.key(host), default: []].formUnion(accepted)
    }

    /// A copy with `host` pinned to `pins` (see ``pin(host:_:)``).
    public func pinning(host: String, _ pins: String) throws(NetworkError) -> PublicKeyPins {
        var copy = self
        try copy.pin(host: host, pins)
        return copy
    }

    /// Whether connections to `host` are pinned.
    public func isPinned(_ host: String) -> Bool {
        digests[Self.key(host)] != nil || digests["*"] != nil
    }

    /// Whether a certificate whose SubjectPublicKeyInfo is `spki` (DER) may serve `host`: always
    /// when the host has no pins.
    public func accepts(publicKeyInfo spki: [UInt8], for host: String) -> Bool {
        let accepted = (digests[Self.key(host)] ?? []).union(digests["*"] ?? [])
        return accepted.isEmpty || accepted.contains(SHA256.hash(spki))
    }

    private static func key(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix("."), name != "." { name.removeLast() }
        return name
    }
}

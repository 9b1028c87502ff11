/// How a transport's TLS connections are set up beyond the defaults: which roots are trusted, the
/// client certificate to present, public-key pins and the lowest protocol version.
///
/// Certificates and keys are PEM text (read a file with `String(contentsOfFile:)`), so settings
/// are plain values that can be compared and logged: ``description`` never shows a key or its
/// passphrase. There is deliberately no way to turn certificate checks off (SECURITY.md): trust a
/// private CA with ``TrustedRoots/systemAnd(_:)`` or ``TrustedRoots/only(_:)`` instead.
///
/// `AsyncHTTPClientTransport` applies all of it. `URLSessionTransport` on Linux can apply none of
/// it (FoundationNetworking passes no TLS option to libcurl; Docs/TLS-and-proxies.md).
public struct TLSSettings: Sendable, Hashable, CustomStringConvertible {
    /// The certificate authorities a server's chain may end at.
    public enum TrustedRoots: Sendable, Hashable {
        /// The system's store (`/etc/ssl/certs` and its kin on Linux).
        case system
        /// The system's store and the certificates in this PEM text (a private CA beside the
        /// public ones).
        case systemAnd(_ certificatesPEM: String)
        /// Only the certificates in this PEM text (curl's `--cacert`): a server with a publicly
        /// trusted certificate is refused.
        case only(_ certificatesPEM: String)
    }

    /// A certificate chain and its private key, presented when the server asks (mutual TLS).
    public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
        /// The client certificate, then any intermediates, in PEM.
        public var certificateChainPEM: String
        /// The private key in PEM (PKCS#8, PKCS#1 or SEC1; encrypted when ``passphrase`` is set).
        public var privateKeyPEM: String
        /// The passphrase of an encrypted private key: ASCII characters only, as SwiftNIO's TLS
        /// takes them (AsyncHTTPClientTransport refuses any other with `invalidTLSSettings`).
        public var passphrase: String?

        /// Creates an identity from PEM text.
        public init(certificateChainPEM: String, privateKeyPEM: String, passphrase: String? = nil) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
            self.passphrase = passphrase
        }

        /// Says that there is an identity, never its key or passphrase.
        public var description: String {
            "client certificate (private key \(passphrase == nil ? "unencrypted" : "with passphrase REDACTED"))"
        }
    }

    /// The lowest TLS version a connection may use.
    public enum Version: String, Sendable, Hashable, Comparable {
        /// TLS 1.2 (RFC 5246): the default, as in every current browser.
        case tls12 = "1.2"
        /// TLS 1.3 (RFC 8446).
        case tls13 = "1.3"

        /// Whether `lhs` is the older version.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs == .tls12 && rhs == .tls13 }
    }

    /// The roots a server's chain may end at. ``TrustedRoots/system`` by default.
    public var trustedRoots: TrustedRoots
    /// The certificate to present when a server asks for one. None by default.
    public var clientIdentity: ClientIdentity?
    /// Public keys pinned per host. None by default.
    public var pinnedPublicKeys: PublicKeyPins
    /// The lowest TLS version accepted. TLS 1.2 by default.
    public var minimumVersion: Version

    /// The system's roots, no client certificate, no pins, TLS 1.2 or later.
    public static let `default` = TLSSettings()

    /// Creates settings; every parameter has the default described on its property.
    public init(trustedRoots: TrustedRoots = .system, clientIdentity: ClientIdentity? = nil,
                pinnedPublicKeys: PublicKeyPins = PublicKeyPins(), minimumVersion: Version = .tls12) {
        self.trustedRoots = trustedRoots
        self.clientIdentity = clientIdentity
        self.pinnedPublicKeys = pinnedPublicKeys
        self.minimumVersion = minimumVersion
    }

    /// A one-line summary with no secret in it.
    public var description: String {
        let roots = switch trustedRoots {
        case .system: "system roots"
        case .systemAnd: "system roots and extra roots"
        case .only: "only the given roots"
        }
        let pins = pinnedPublicKeys.isEmpty ? "" : ", pinned keys for \(pinnedPublicKeys.hosts.joined(separator: ", "))"
        return "TLS \(minimumVersion.rawValue)+, \(roots)\(clientIdentity.map { ", \($0)" } ?? "")\(pins)"
    }
}

extension TLSSettings.ClientIdentity: CustomReflectable {
    /// Shows the certificate chain, never the key or its passphrase, so `dump` of settings cannot
    /// leak them.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "certificateChainPEM": certificateChainPEM, "privateKeyPEM": NetworkRedaction.placeholder,
            "passphrase": passphrase.map { _ in NetworkRedaction.placeholder } as Any,
        ], displayStyle: .struct)
    }
}

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetCore
import NIOSSL

extension TLSSettings {
    /// The settings as SwiftNIO SSL's client configuration: parsed once, when the transport is
    /// created, so a bad certificate, key or passphrase is reported before any request.
    func clientConfiguration() throws(NetworkError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification  // never weaker (SECURITY.md)
        configuration.minimumTLSVersion = minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        switch trustedRoots {
        case .system:
            break
        case .systemAnd(let pem):
            configuration.additionalTrustRoots = [.certificates(try Self.certificates(pem, role: "trusted root"))]
        case .only(let pem):
            configuration.trustRoots = .certificates(try Self.certificates(pem, role: "trusted root"))
        }
        if let identity = clientIdentity {
            configuration.certificateChain = try Self.certificates(identity.certificateChainPEM, role: "client certificate").map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(identity))
        }
        return configuration
    }

    private static func certificates(_ pem: String, role: String) throws(NetworkError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw .transport(.invalidTLSSettings("the \(role) PEM does not parse (\(error))"))
        }
        guard !certificates.isEmpty else { throw .transport(.invalidTLSSettings("the \(role) PEM holds no certificate")) }
        return certificates
    }

    private static func privateKey(_ identity: ClientIdentity) throws(NetworkError) -> NIOSSLPrivateKey {
        // Always with a callback: without one, BoringSSL would prompt for a passphrase on stdin.
        let passphrase = Array((identity.passphrase ?? "").utf8)
        // SwiftNIO's TLS turns each byte into a signed C character and traps on any above 127
        // (swift-nio-ssl 2.x, SSLPrivateKey): such a passphrase is refused here instead.
        guard passphrase.allSatisfy({ $0 < 0x80 }) else {
            throw .transport(.invalidTLSSettings("the private key's passphrase has characters other than ASCII, which SwiftNIO's TLS cannot take"))
        }
        do {
            return try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem) { (setter: NIOSSLPassphraseSetter<[UInt8]>) in
                setter(passphrase)
            }
        } catch {
            let reason = identity.passphrase == nil
                ? "the private key does not parse, or is encrypted and no passphrase was given"
                : "the private key does not parse, or the passphrase is wrong"
            throw .transport(.invalidTLSSettings("\(reason) (\(error))"))
        }
    }
}
#endif

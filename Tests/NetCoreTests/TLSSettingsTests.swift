import Foundation
@testable import NetCore
import NetTestSupport
import Testing

/// Public-key pins in curl's syntax, the SHA-256 behind them, and settings that never print a
/// secret.
@Suite("TLS settings: pins, SHA-256, descriptions")
struct TLSSettingsTests {
    @Test("SHA-256 matches NIST's vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256Vectors(_ message: String, _ digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).map { String(format: "%02x", $0) }.joined() == digest)
    }

    @Test("SHA-256 matches openssl on every length around the block boundaries")
    func sha256AgainstOpenSSL() async throws {
        for length in [55, 56, 63, 64, 65, 119, 1000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-sha-\(UUID().uuidString)")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let output = String(decoding: try await runProcessOffPool("/usr/bin/openssl", ["dgst", "-sha256", "-r", file.path]), as: UTF8.self)
            #expect(output.hasPrefix(SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined()), "length \(length)")
        }
    }

    @Test("pins in curl's syntax: several per host for rotation, `*` for every host, hosts without pins unaffected")
    func pins() throws {
        let key = Array("a public key".utf8)
        let pin = "sha256//" + Data(SHA256.hash(key)).base64EncodedString()
        let other = "sha256//" + Data(SHA256.hash(Array("next key".utf8))).base64EncodedString()
        let pins = try PublicKeyPins().pinning(host: "API.example.com.", "\(other); \(pin)")
        #expect(pins.isPinned("api.example.com"))
        #expect(pins.accepts(publicKeyInfo: key, for: "api.example.com"))
        #expect(!pins.accepts(publicKeyInfo: Array("another key".utf8), for: "api.example.com"))
        #expect(pins.accepts(publicKeyInfo: Array("another key".utf8), for: "unpinned.example.com"))
        let everywhere = try PublicKeyPins().pinning(host: "*", pin)
        #expect(everywhere.isPinned("any.host") && !everywhere.accepts(publicKeyInfo: [1, 2, 3], for: "any.host"))
    }

    @Test("malformed pins are typed settings errors", arguments: ["", "sha1//AAAA", "sha256//not base64!", "sha256//" + Data(count: 31).base64EncodedString()])
    func malformedPins(_ text: String) {
        #expect {
            try PublicKeyPins().pinning(host: "example.com", text)
        } throws: { error in
            guard case NetworkError.transport(.invalidTLSSettings) = error else { return false }
            return true
        }
    }

    @Test("settings describe themselves without keys or passphrases")
    func descriptions() throws {
        let settings = TLSSettings(
            trustedRoots: .only("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"),
            clientIdentity: .init(certificateChainPEM: "-----BEGIN CERTIFICATE-----", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nsecretkey", passphrase: "hunter2"),
            pinnedPublicKeys: try PublicKeyPins().pinning(host: "example.com", "sha256//" + Data(count: 32).base64EncodedString()),
            minimumVersion: .tls13)
        let text = "\(settings)"
        #expect(text == "TLS 1.3+, only the given roots, client certificate (private key with passphrase REDACTED), pinned keys for example.com")
        #expect(!text.contains("hunter2") && !text.contains("secretkey"))
    }
}

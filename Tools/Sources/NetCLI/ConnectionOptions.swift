import ArgumentParser
import Foundation
import Net

/// TLS and proxy options, in curl's spelling. They configure `AsyncHTTPClientTransport`;
/// URLSession on Linux takes none of them (Docs/TLS-and-proxies.md), so with
/// `--transport urlsession` they are usage errors rather than silently ignored.
public struct ConnectionOptions: ParsableArguments {
    /// Creates empty options; ArgumentParser fills them in.
    public init() {}

    @Option(help: ArgumentHelp("Trust only the CA certificates in this PEM file (curl's --cacert).", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Present this client certificate (PEM; may hold the key too).", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The client certificate's private key (PEM), if not in --cert's file.", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("The passphrase of an encrypted --key.", valueName: "phrase"))
    var pass: String?

    @Option(help: ArgumentHelp(
        "Accept only servers whose public key has one of these SHA-256 pins: sha256//BASE64[;sha256//BASE64…].",
        valueName: "pins"))
    var pinnedpubkey: String?

    @Option(help: ArgumentHelp(
        "Send requests through this proxy: http://[user:pass@]host[:port] or socks5://[user:pass@]host[:port]; \"\" for none.",
        discussion: "Without --proxy, http_proxy, https_proxy, all_proxy and no_proxy (or their upper-case forms) are used, as curl does.",
        valueName: "url"))
    var proxy: String?

    @Option(help: ArgumentHelp("Hosts that bypass the proxy: a NO_PROXY list (names, .domains, IPs, CIDR, host:port, *).", valueName: "list"))
    var noproxy: String?

    /// Whether any option was given, so `--transport urlsession` can refuse them.
    var isSet: Bool {
        [cacert, cert, key, pass, pinnedpubkey, proxy, noproxy].contains { $0 != nil }
    }

    /// Checked by ArgumentParser before running: failures are usage errors (status 2).
    public func validate() throws {
        if key != nil && cert == nil { throw ValidationError("--key is the key of a --cert: give one") }
        if pass != nil && cert == nil { throw ValidationError("--pass is the passphrase of a --cert's key: give one") }
    }

    /// The TLS settings the options describe; unreadable files are usage errors, certificates
    /// that do not parse are the transport's typed errors (status 1).
    func tlsSettings() throws -> TLSSettings {
        var settings = TLSSettings()
        if let cacert { settings.trustedRoots = .only(try Self.read(cacert, option: "--cacert")) }
        if let cert {
            let certificate = try Self.read(cert, option: "--cert")
            let key = try key.map { try Self.read($0, option: "--key") } ?? certificate
            settings.clientIdentity = .init(certificateChainPEM: certificate, privateKeyPEM: key, passphrase: pass)
        }
        if let pinnedpubkey {
            do {
                settings.pinnedPublicKeys = try PublicKeyPins().pinning(host: "*", pinnedpubkey)
            } catch {
                throw UsageError("--pinnedpubkey: \(error)")
            }
        }
        return settings
    }

    /// The proxies: `--proxy` (with `--noproxy`), or the environment's as curl reads it.
    func proxyConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyConfiguration {
        var configuration: ProxyConfiguration
        do {
            if let proxy {
                configuration = proxy.isEmpty ? .direct : ProxyConfiguration(proxy: try NetworkProxy(url: proxy))
            } else {
                configuration = try .environment(environment)
            }
        } catch {
            throw UsageError(proxy == nil ? "\(error)" : "--proxy: \(error)")
        }
        if let noproxy { configuration.noProxy = NoProxyRules(noproxy) }
        return configuration
    }

    /// The options as curl's, for `--curl`: the proxy's password and the key's passphrase redacted.
    var curlArguments: [String] {
        var arguments: [String] = []
        if let cacert { arguments += ["--cacert", cacert] }
        if let cert { arguments += ["--cert", cert] }
        if let key { arguments += ["--key", key] }
        if pass != nil { arguments += ["--pass", NetworkRedaction.placeholder] }
        if let pinnedpubkey { arguments += ["--pinnedpubkey", pinnedpubkey] }
        if let proxy { arguments += ["--proxy", proxy.isEmpty ? "" : ((try? NetworkProxy(url: proxy)).map { "\($0)" } ?? NetworkRedaction.redactedURL(proxy))] }
        if let noproxy { arguments += ["--noproxy", noproxy] }
        return arguments
    }

    private static func read(_ path: String, option: String) throws -> String {
        guard let data = try LocalFile.read(path, option: option, allowingPipes: true) else {
            throw UsageError("\(option): cannot read \(path) (no such file)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw UsageError("\(option): \(path) is not UTF-8 text") }
        return text
    }
}

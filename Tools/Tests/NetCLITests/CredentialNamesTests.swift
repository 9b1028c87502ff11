import Testing
@testable import NetCLI

/// The header names `--curl` redacts and a redirect to another origin drops, word by word, as
/// Docs/CLI.md lists them.
@Suite("Header names that say they hold a credential")
struct CredentialNamesTests {
    @Test("token, secret, passw, apikey and auth words, session words and key itself are credentials",
          arguments: ["X-Client-Secret", "X-Password", "X-Passwd", "X-Auth", "X-Auth-Token", "X-Authorization-Extra", "X-Api-Token",
                      "X-ApiKey", "X-Session-Id", "Session-Token", "X-Sessionid", "X-Session", "X-Key", "Key", "Access_Token"])
    func credential(_ name: String) {
        #expect(RequestPlan.namesACredential(name))
    }

    @Test("authors, plain session words and the keys that name no secret are not",
          arguments: ["X-Author", "X-Authored-By", "Session-Affinity", "Cache-Key", "Idempotency-Key", "Sec-WebSocket-Key",
                      "X-Public-Key", "X-Ssh-Key", "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", "Accept", "X-Keyboard"])
    func notCredential(_ name: String) {
        #expect(!RequestPlan.namesACredential(name))
    }
}

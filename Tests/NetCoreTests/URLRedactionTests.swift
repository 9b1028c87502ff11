import Foundation
import NetCore
import Testing

/// `NetworkRedaction.redactedURL`: what a URL shows wherever Net writes one (errors, logs, curl,
/// HAR, spans).
@Suite("NetworkRedaction: URLs")
struct URLRedactionTests {
    @Test("user info: a user with a password keeps the user, a user name alone is a token and goes whole", arguments: [
        ("https://ann:pw-0123@x.test/p", "https://ann:REDACTED@x.test/p"),
        ("https://ghp_usertoken0123@github.com/o/r.git", "https://REDACTED@github.com/o/r.git"),
        ("https://sk_live_0123456789:@api.stripe.com/v1/charges", "https://REDACTED@api.stripe.com/v1/charges"),
        ("https://x.test/p?q=1", "https://x.test/p?q=1"),
    ])
    func userInfo(_ url: String, _ shown: String) {
        #expect(NetworkRedaction.redactedURL(url) == shown)
    }

    @Test("a fragment's key=value pairs are redacted as the query's are (an OAuth implicit flow's access_token)")
    func fragment() {
        let url = "https://app.test/cb?state=s1#access_token=at-0123456789&token_type=bearer&expires_in=3600"
        #expect(NetworkRedaction.redactedURL(url) == "https://app.test/cb?state=s1#access_token=REDACTED&token_type=bearer&expires_in=3600")
        #expect(NetworkRedaction.redactedURL("https://app.test/doc#section-2") == "https://app.test/doc#section-2")
        // A hash router's callback: its pairs start after the fragment's own `?`.
        #expect(NetworkRedaction.redactedURL("https://app.test/?v=1#/callback?access_token=at-0123456789&state=x")
            == "https://app.test/?v=1#/callback?access_token=REDACTED&state=x")
    }

    @Test("vendors' credentials are known: signed URLs, OAuth 1, API keys in the query; vendors' credential headers in curl", arguments: [
        "https://storage.googleapis.com/b/o?X-Goog-Credential=gc-0123456789&X-Goog-Signature=gs-0123456789&X-Goog-Expires=60",
        "https://api.test/r?oauth_token=ot-0123456789&oauth_signature=os-0123456789",
        "https://gitlab.test/api/v4/projects?private_token=pt-0123456789",
        "https://bucket.s3.amazonaws.com/o?AWSAccessKeyId=AK-0123456789&Signature=sg-0123456789&Expires=60",
    ])
    func vendorKeys(_ url: String) throws {
        let shown = NetworkRedaction.redactedURL(url)
        #expect(!shown.contains("0123456789"), "\(shown)")
        #expect(shown.contains("REDACTED"))
        let request = try NetworkRequest(url: "https://api.test/", headers: [
            .header(key: "X-Goog-Api-Key", value: "gk-0123456789"), .header(key: "PRIVATE-TOKEN", value: "pt-0123456789"),
            .header(key: "Ocp-Apim-Subscription-Key", value: "az-0123456789"), .header(key: "DD-API-KEY", value: "dd-0123456789"),
        ])
        #expect(!request.curl.contains("0123456789"), "\(request.curl)")
    }

    @Test("a request's description hides a user-name token and a fragment token, as its curl command does")
    func requestText() throws {
        let request = try NetworkRequest(url: "https://ghp_usertoken0123@github.com/o/r#access_token=at-0123456789")
        for text in [request.description, request.curl] {
            #expect(!text.contains("ghp_usertoken0123") && !text.contains("at-0123456789"), "\(text)")
        }
    }
}

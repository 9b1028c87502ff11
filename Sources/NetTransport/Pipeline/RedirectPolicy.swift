/// Whether a call follows redirects: one setting for every transport, applied by the pipeline.
public enum RedirectPolicy: Sendable, Hashable {
    /// Follow up to `limit` redirects; one more is ``NetworkError/TransportFailure/tooManyRedirects(limit:lastURL:)``.
    case follow(limit: Int)
    /// Return 3xx responses to the caller as they are.
    case doNotFollow
}

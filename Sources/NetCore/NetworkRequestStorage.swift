#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of a ``NetworkRequest``, boxed so that copying a request costs one reference count.
///
/// `@unchecked Sendable` is safe by copy-on-write: `NetworkRequest` is the only holder of a box,
/// it reads a box's fields freely (reads never race with each other) and writes one only after
/// `isKnownUniquelyReferenced` has proved that its own reference is the only one, so no other
/// request, and no other thread, can see a box while it changes. `Array` and `Data` rely on the
/// same rule.
final class NetworkRequestStorage: @unchecked Sendable {
    var url: URL
    var httpMethod: NetworkHttpMethod
    var headers: NetworkHeaders
    var body: NetworkRequestBody
    var timeout: Duration?
    var cachePolicy: NetworkCachePolicy = .useProtocolCachePolicy
    var secretQueryKeys: Set<String>
    var secretHeaderNames: Set<String> = []
    var credentialGeneration: Int?
    /// Whether ``url`` met `validate()`'s rules when it was set: checking a URL reads its text,
    /// and the initialisers and every transport validate each request.
    var urlPassedValidation = false

    init(url: URL, httpMethod: NetworkHttpMethod, headers: NetworkHeaders, body: NetworkRequestBody,
         timeout: Duration?, secretQueryKeys: Set<String>) {
        self.url = url
        self.httpMethod = httpMethod
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.secretQueryKeys = secretQueryKeys
    }

    init(copying other: NetworkRequestStorage) {
        url = other.url
        httpMethod = other.httpMethod
        headers = other.headers
        body = other.body
        timeout = other.timeout
        cachePolicy = other.cachePolicy
        secretQueryKeys = other.secretQueryKeys
        secretHeaderNames = other.secretHeaderNames
        credentialGeneration = other.credentialGeneration
        urlPassedValidation = other.urlPassedValidation
    }
}

#if !OpenAPI
/// Stands in for the transport when the package trait `OpenAPI` is off, so that code using it fails
/// to compile with a message that says how to turn the trait on, instead of "cannot find type".
/// With the trait off this module depends on no package and holds nothing else.
@available(
    *, unavailable,
    message: "NetOpenAPITransport needs Net's package trait \"OpenAPI\": .package(url: …, from: …, traits: [\"OpenAPI\"])"
)
public struct NetOpenAPITransport: Sendable {
    /// Public so that a call to it reports the type's unavailability (the trait to enable) rather
    /// than an inaccessible initialiser.
    public init() {}
}
#endif

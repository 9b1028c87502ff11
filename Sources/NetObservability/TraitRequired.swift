#if !Observability
/// Stands in for the interceptor when the package trait `Observability` is off, so that code using
/// it fails to compile with a message that says how to turn the trait on, instead of "cannot find
/// type". With the trait off this module depends on no package and holds nothing else.
@available(
    *, unavailable,
    message: "ObservabilityInterceptor needs Net's package trait \"Observability\": .package(url: …, from: …, traits: [\"Observability\"])"
)
public struct ObservabilityInterceptor: Sendable {
    /// Public so that a call to it reports the type's unavailability (the trait to enable) rather
    /// than an inaccessible initialiser.
    public init() {}
}
#endif

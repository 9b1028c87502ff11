/// A call's ``NetworkProgressReporter``, held by the call as an object: the pipeline reports
/// through ``report`` and the call's entry point finishes the stream when the call is over.
///
/// The reporter is an `AsyncStream` continuation, whose type is not `@frozen`: each async frame
/// that holds one, or an optional one, allocates room for it from the task when the frame is
/// entered and copies it through its type's value witnesses (Benchmarks/NOTEBOOK.md, "Resilient
/// types in async frames"). Calls without progress, most of them, have no relay at all.
final class ProgressRelay: Sendable {
    /// The caller's progress sequence.
    private let reporter: NetworkProgressReporter

    /// What the pipeline and the transport call for each event.
    let report: TransportProgressHandler

    /// A relay for `reporter`, or `nil` for none. Out of line, so that the optional reporter is
    /// read here rather than held in the caller's async frame.
    @inline(never)
    static func make(_ reporter: NetworkProgressReporter?) -> ProgressRelay? {
        reporter.map(ProgressRelay.init)
    }

    /// A relay that yields every event to `reporter`.
    private init(_ reporter: NetworkProgressReporter) {
        self.reporter = reporter
        report = { event in reporter.yield(event) }
    }

    /// Ends the caller's progress sequence.
    func finish() {
        reporter.finish()
    }
}

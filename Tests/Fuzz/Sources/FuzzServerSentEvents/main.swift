import FoundationEssentials
import FuzzSupport
import NetCore

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzServerSentEvents_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// Any bytes as an event stream, with small limits: the decoder either throws a typed stream
/// failure or yields events that (1) are the same however the bytes are cut into chunks, with the
/// same failure at the same event; (2) are exactly what `WHATWGEventStreamOracle` (the standard's
/// text transcribed over the whole input, sharing no code with the decoder) finds, or the start
/// of it when a limit stopped the decoder; (3) could have come from the input (no more events than
/// blank lines, no line break inside a type or ID, no CR in data, no NUL in an ID); and (4) decode
/// to themselves again when written back out in canonical form.
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let whole = decode([bytes])
    let step = max(1, Int(bytes.first ?? 1) % 17)
    let pieces = stride(from: 0, to: bytes.count, by: step).map { Array(bytes[$0..<min(bytes.count, $0 + step)]) }
    let cut = decode(pieces)
    fuzzCheck(whole.events == cut.events && whole.failure == cut.failure, "cutting into \(step)-byte chunks changed the outcome")

    let reference = WHATWGEventStreamOracle.events(bytes).map { ServerSentEvent(type: $0.type, data: $0.data, lastEventID: $0.lastEventID) }
    if whole.failure == nil {
        fuzzCheck(whole.events == reference, "the standard's text finds \(reference.count) events, the decoder \(whole.events.count)")
    } else {
        fuzzCheck(reference.starts(with: whole.events), "the events before the failure are not the standard's first events")
    }

    let blankLines = zip([UInt8(0x0A)] + bytes, bytes).filter { ($0.0 == 0x0A || $0.0 == 0x0D) && ($0.1 == 0x0A || $0.1 == 0x0D) }.count
    fuzzCheck(whole.events.count <= blankLines + 1, "more events than blank lines")
    for event in whole.events {
        fuzzCheck(!event.type.isEmpty && !event.type.contains { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }, "bad type \(event.type.debugDescription)")
        fuzzCheck(!event.data.unicodeScalars.contains("\r"), "CR in data")
        fuzzCheck(!event.lastEventID.unicodeScalars.contains { $0 == "\0" || $0 == "\n" || $0 == "\r" }, "bad id \(event.lastEventID.debugDescription)")
    }
    var canonical: [UInt8] = []
    for event in whole.events {
        canonical += Array("event: \(event.type)\nid: \(event.lastEventID)\n".utf8)
        for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { canonical += Array("data: \(line)\n".utf8) }
        canonical += Array("\n".utf8)
    }
    var again = ServerSentEventDecoder(maximumLineLength: .max, maximumEventLength: .max)
    let reread = (try? again.decode(Data(canonical))) ?? []
    fuzzCheck(reread == whole.events, "events written back out did not decode to themselves")
    return 0
}

private func decode(_ chunks: [[UInt8]]) -> (events: [ServerSentEvent], failure: NetworkError.StreamFailure?) {
    var decoder = ServerSentEventDecoder(maximumLineLength: 256, maximumEventLength: 1_024)
    var events: [ServerSentEvent] = []
    do {
        for chunk in chunks { try decoder.decode(Data(chunk), into: &events) }
        return (events, nil)
    } catch NetworkError.stream(let failure) {
        return (events, failure)
    } catch {
        fuzzCheck(false, "untyped error \(error)")
        return (events, nil)
    }
}

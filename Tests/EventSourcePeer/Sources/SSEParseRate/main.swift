import Foundation
import MatttEventSource
import NetCore

// Parse rate of Net's ServerSentEventDecoder and of mattt/EventSource 1.1.1's parser on the same
// bytes: typical LLM-style token events (`data: {"token":…}`, with an `id:` every tenth event and a
// named event now and then), handed over in 16 KiB chunks as a socket would. Each figure is the
// median of `--runs` runs, with min–max.
//
//   swift run -c release --package-path Tests/EventSourcePeer SSEParseRate [--mib 100] [--peer-mib 100] [--runs 5]

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count else { return fallback }
    return Int(CommandLine.arguments[index + 1]) ?? fallback
}

let mebibytes = option("--mib", 100)
let peerMebibytes = option("--peer-mib", mebibytes)
let runs = option("--runs", 5)

func typicalEvents(bytes target: Int) -> (stream: [UInt8], events: Int) {
    var stream: [UInt8] = []
    stream.reserveCapacity(target + 256)
    var count = 0
    let words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", " Net", " streams", " tokens"]
    while stream.count < target {
        if count % 10 == 0 { stream += Array("id: \(count)\n".utf8) }
        if count % 50 == 0 { stream += Array("event: usage\n".utf8) }
        stream += Array("data: {\"token\":\"\(words[count % words.count])\",\"index\":\(count)}\n\n".utf8)
        count += 1
    }
    return (stream, count)
}

func chunks(_ stream: [UInt8]) -> [Data] {
    stride(from: 0, to: stream.count, by: 16_384).map { Data(stream[$0..<min(stream.count, $0 + 16_384)]) }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let (stream, events) = typicalEvents(bytes: mebibytes << 20)
let pieces = chunks(stream)
var netRates: [Double] = []
for _ in 0..<runs {
    var decoder = ServerSentEventDecoder()
    var found: [ServerSentEvent] = []
    var seen = 0
    let elapsed = try ContinuousClock().measure {
        for piece in pieces {
            found.removeAll(keepingCapacity: true)
            try decoder.decode(piece, into: &found)
            seen += found.count
        }
    }
    precondition(seen == events, "Net decoded \(seen) of \(events) events")
    netRates.append(Double(stream.count) / 1_048_576 / seconds(elapsed))
}

/// The peer's parser as its own `AsyncServerSentEventsSequence` drives it (a byte, then a look
/// for an event), from a nonisolated function: top-level code runs on the main actor, and hopping
/// from there to the parser's actor for every byte would measure thread switches, not the parser.
nonisolated func peerRate(_ pieces: [Data], bytes: Int, events: Int) async -> Double {
    let parser = EventSource.Parser()
    var seen = 0
    let start = ContinuousClock.now
    for piece in pieces {
        for byte in piece {
            await parser.consume(byte)
            while await parser.getNextEvent() != nil { seen += 1 }
        }
    }
    let elapsed = ContinuousClock.now - start
    precondition(seen == events, "mattt/EventSource parsed \(seen) of \(events) events")
    return Double(bytes) / 1_048_576 / seconds(elapsed)
}

let (peerStream, peerEvents) = typicalEvents(bytes: peerMebibytes << 20)
let peerPieces = chunks(peerStream)
var peerRates: [Double] = []
for _ in 0..<runs {
    peerRates.append(await peerRate(peerPieces, bytes: peerStream.count, events: peerEvents))
}

func line(_ name: String, _ rates: [Double], _ size: Int, _ count: Int) -> String {
    String(format: "%@: %.1f MiB/s (min %.1f, max %.1f) over %d MiB, %d events, %d runs", name, median(rates), rates.min() ?? 0, rates.max() ?? 0, size, count, rates.count)
}
print(line("Net ServerSentEventDecoder", netRates, mebibytes, events))
print(line("mattt/EventSource 1.1.1 Parser", peerRates, peerMebibytes, peerEvents))
print(String(format: "ratio: %.1f×", median(netRates) / median(peerRates)))

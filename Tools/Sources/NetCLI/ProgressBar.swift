import Foundation
import Net

/// A one-line progress bar on standard error, redrawn at most ten times a second.
struct ProgressBar {
    private var lastDrawn = ContinuousClock.now - .seconds(1)
    private let width = 30

    /// Draws `progress` unless the last drawing was under 100 ms ago (the final one always shows).
    mutating func draw(_ progress: NetworkProgress) {
        let now = ContinuousClock.now
        let finished = progress.expectedBytes.map { progress.completedBytes >= $0 } ?? false
        guard finished || now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = now
        Output.error("\r" + Self.line(progress, width: width))
    }

    /// Ends the bar's line.
    func finish() { Output.error("\n") }

    /// `[=========>          ]  45%  4.5 MB of 10.0 MB`, or the byte count alone when the total is unknown.
    static func line(_ progress: NetworkProgress, width: Int) -> String {
        let done = byteCount(progress.completedBytes)
        guard let expected = progress.expectedBytes, expected > 0 else { return "\(done) received" }
        let fraction = min(1, Double(progress.completedBytes) / Double(expected))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "") + String(repeating: " ", count: max(0, width - filled - 1))
        let percent = String(Int(fraction * 100))
        return "[\(bar)] \(String(repeating: " ", count: 3 - percent.count))\(percent)%  \(done) of \(byteCount(expected))"
    }

    static func byteCount(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}

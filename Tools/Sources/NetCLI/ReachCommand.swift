import ArgumentParser
import Foundation
import Net

/// `net reach`: this machine's network path now, then each change.
public struct ReachCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Print this machine's network path (connection kind, interfaces, addresses, gateways), then each change.")

    @Flag(help: "Print the current path and exit.")
    var once = false

    @Flag(help: "Print one JSON object per line.")
    var json = false

    /// Creates the command; ArgumentParser fills in its flags.
    public init() {}

    /// Prints the current path, then (without `--once`) one entry per change until interrupted.
    public func run() async throws {
        let reachability = try NetworkReachability()
        if once {
            try Output.write(format(reachability.currentPath()))
            return
        }
        // The stream's first element is the current path.
        for try await path in try reachability.startNotifier() {
            try Output.write(format(path))
        }
    }

    private func format(_ path: NetworkPath) -> String {
        json ? PathFormatter.json(path, at: Date()) + "\n" : PathFormatter.text(path, at: Date())
    }
}

/// How `net reach` shows a path.
public enum PathFormatter {
    /// A few indented lines: the summary, then each interface and each default route.
    public static func text(_ path: NetworkPath, at time: Date) -> String {
        var lines = ["\(timestamp(time))  \(path.isReachable ? "reachable" : "unreachable"): \(path)"]
        for interface in path.interfaces {
            let addresses = interface.addresses.map(\.description).joined(separator: ", ")
            lines.append("  interface \(interface.name) (\(interface.kind))\(addresses.isEmpty ? "" : ": " + addresses)")
        }
        for gateway in path.gateways {
            lines.append("  gateway \(gateway.address?.description ?? "(direct)") via \(gateway.interfaceName) (\(gateway.family.rawValue), metric \(gateway.metric))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object on one line.
    public static func json(_ path: NetworkPath, at time: Date) -> String {
        let interfaces = path.interfaces.map { interface in
            "{\"name\":\(JSONText.quoted(interface.name)),\"kind\":\(JSONText.quoted(interface.kind.rawValue)),"
                + "\"addresses\":[\(interface.addresses.map { JSONText.quoted($0.description) }.joined(separator: ","))],"
                + "\"ipv4\":\(interface.supportsIPv4),\"ipv6\":\(interface.supportsIPv6)}"
        }
        let gateways = path.gateways.map { gateway in
            "{\"address\":\(gateway.address.map { JSONText.quoted($0.description) } ?? "null"),"
                + "\"interface\":\(JSONText.quoted(gateway.interfaceName)),\"family\":\(JSONText.quoted(gateway.family.rawValue)),"
                + "\"metric\":\(gateway.metric)}"
        }
        return "{\"time\":\(JSONText.quoted(timestamp(time))),\"connection\":\(JSONText.quoted(path.connection.rawValue)),"
            + "\"reachable\":\(path.isReachable),\"expensive\":\(path.isExpensive),"
            + "\"ipv4\":\(path.supportsIPv4),\"ipv6\":\(path.supportsIPv6),"
            + "\"interfaces\":[\(interfaces.joined(separator: ","))],\"gateways\":[\(gateways.joined(separator: ","))]}"
    }

    private static func timestamp(_ time: Date) -> String {
        time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

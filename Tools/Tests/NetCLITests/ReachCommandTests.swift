import Foundation
import Testing

/// `net reach` inside a network namespace the test builds, with a veth link whose addresses and
/// gateway it knows.
@Suite("net reach in a network namespace")
struct ReachCommandTests {
    struct Line: Decodable {
        struct Interface: Decodable { let name: String; let kind: String; let addresses: [String]; let ipv4: Bool; let ipv6: Bool }
        struct Gateway: Decodable { let address: String?; let interface: String; let family: String; let metric: Int }
        let time: String
        let connection: String
        let reachable: Bool
        let ipv4: Bool
        let ipv6: Bool
        let interfaces: [Interface]
        let gateways: [Gateway]
    }

    @Test("--once --json prints the namespace's path as one JSON line")
    func onceJSON() async throws {
        let namespace = try Namespace()
        defer { namespace.delete() }
        let empty = try await namespace.net(["reach", "--once", "--json"])
        #expect(empty.status == 0, "\(empty.standardError)")
        let unreachable = try JSONDecoder().decode(Line.self, from: empty.standardOutput)
        #expect(!unreachable.reachable && unreachable.connection == "unavailable" && unreachable.interfaces.isEmpty)

        for command in [
            "link add veth0 type veth peer name veth1", "link set veth1 up", "link set veth0 up",
            "addr add 192.0.2.2/24 dev veth0", "route add default via 192.0.2.1 dev veth0 metric 7",
        ] {
            try await namespace.ip(command)
        }
        let result = try await namespace.net(["reach", "--once", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.filter { $0 == "\n" }.count == 1)
        let line = try JSONDecoder().decode(Line.self, from: result.standardOutput)
        #expect(line.reachable && line.connection == "other" && line.ipv4 && !line.ipv6)
        #expect(line.interfaces.map(\.name) == ["veth0"] && line.interfaces.first?.addresses == ["192.0.2.2"])
        #expect(line.gateways.count == 1)
        #expect(line.gateways.first.map { ($0.address, $0.interface, $0.family, $0.metric) } ?? (nil, "", "", 0) == ("192.0.2.1", "veth0", "ipv4", 7))

        let text = try await namespace.net(["reach", "--once"])
        #expect(text.status == 0)
        #expect(text.output.contains("reachable: other via veth0 (IPv4)"))
        #expect(text.output.contains("  interface veth0 (other): 192.0.2.2\n"))
        #expect(text.output.contains("  gateway 192.0.2.1 via veth0 (ipv4, metric 7)\n"))
    }

    @Test("without --once, a line at start and another when the path changes, until stopped")
    func monitoring() async throws {
        let namespace = try Namespace()
        defer { namespace.delete() }
        let scratch = try ScratchDirectory()
        let output = scratch.path("reach.jsonl")
        let pid = try ProcessRunner.spawn("ip", ["netns", "exec", namespace.name, ProcessRunner.net, "reach", "--json"],
                                          standardInput: "/dev/null", standardOutput: output, standardError: scratch.path("stderr"))
        func lines() -> [Line] {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        }
        /// Polls `condition` every 20 ms for up to 20 s: the monitor's lines are the events waited for.
        func eventually(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<1_000 {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition()
        }
        #expect(await eventually { !lines().isEmpty }, "no first line")
        #expect(lines().first?.reachable == false)
        for command in [
            "link add veth0 type veth peer name veth1", "link set veth1 up", "link set veth0 up",
            "addr add 192.0.2.2/24 dev veth0", "route add default via 192.0.2.1 dev veth0 metric 7",
        ] {
            try await namespace.ip(command)
        }
        #expect(await eventually { lines().last.map { $0.reachable && $0.gateways.count == 1 } == true }, "\(lines().count) lines")
        #expect(lines().count >= 2)
        kill(pid, SIGTERM)
        #expect(await ProcessRunner.wait(pid, limit: .seconds(20)) == 128 + SIGTERM, "it runs until stopped")
    }

    /// A named namespace (`ip netns add`), so `ip netns exec` also mounts its sysfs.
    final class Namespace: Sendable {
        let name = "net-cli-" + UUID().uuidString.prefix(8).lowercased()

        init() throws {
            guard geteuid() == 0 else {
                throw ProcessFailure(description: "`net reach` is tested in a network namespace, which needs root (euid \(geteuid()))")
            }
            let created = try Self.runBlocking("ip", ["netns", "add", name])
            guard created.status == 0 else {
                throw ProcessFailure(description: "`ip netns add` failed (is iproute2 installed?): \(created.standardError)")
            }
        }

        func ip(_ command: String) async throws {
            let result = try await ProcessRunner.run("ip", ["-n", name] + command.split(separator: " ").map(String.init))
            guard result.status == 0 else { throw ProcessFailure(description: "ip \(command): \(result.standardError)") }
        }

        func net(_ arguments: [String]) async throws -> Finished {
            try await ProcessRunner.run("ip", ["netns", "exec", name, ProcessRunner.net] + arguments)
        }

        func delete() { _ = try? Self.runBlocking("ip", ["netns", "delete", name]) }

        private static func runBlocking(_ program: String, _ arguments: [String]) throws -> Finished {
            let pid = try ProcessRunner.spawn(program, arguments, standardInput: "/dev/null", standardOutput: "/dev/null", standardError: nil)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return Finished(status: (status >> 8) & 0xFF, standardOutput: Data(), standardError: "")
        }
    }
}

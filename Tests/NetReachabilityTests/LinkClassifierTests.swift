import CNetlink
import Foundation
@testable import NetReachability
import Testing

@Suite("Link classification from sysfs")
struct LinkClassifierTests {
    /// A sysfs tree on disk: `<root>/<name>/uevent`, optional `wireless/`, optional device symlink.
    private func sysfs(_ entries: [(name: String, uevent: String, wireless: Bool, device: String?)]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("net-sysfs-\(UUID().uuidString)")
        for entry in entries {
            let target = root.appendingPathComponent("devices").appendingPathComponent(entry.device ?? "pci0000:00/\(entry.name)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try Data(entry.uevent.utf8).write(to: target.appendingPathComponent("uevent"))
            if entry.wireless {
                try FileManager.default.createDirectory(at: target.appendingPathComponent("wireless"), withIntermediateDirectories: true)
            }
            let classDirectory = root.appendingPathComponent("class")
            try FileManager.default.createDirectory(at: classDirectory, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: classDirectory.appendingPathComponent(entry.name).path, withDestinationPath: target.path)
        }
        return root
    }

    @Test("Wi-Fi, cellular, virtual and wired links are told apart; sysfs from another namespace is not trusted")
    func kinds() throws {
        let root = try sysfs([
            ("wlp2s0", "INTERFACE=wlp2s0\nIFINDEX=3\nDEVTYPE=wlan\n", false, nil),
            ("wlan1", "INTERFACE=wlan1\nIFINDEX=4\n", true, nil),
            ("wwan0", "INTERFACE=wwan0\nIFINDEX=5\nDEVTYPE=wwan\n", false, nil),
            ("dummy0", "INTERFACE=dummy0\nIFINDEX=6\n", false, "virtual/net/dummy0"),
            ("enp1s0", "INTERFACE=enp1s0\nIFINDEX=7\n", false, nil),
            ("stale0", "INTERFACE=stale0\nIFINDEX=99\nDEVTYPE=wlan\n", false, nil),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let classifier = LinkClassifier(sysfsRoot: root.appendingPathComponent("class").path)
        func kind(_ name: String, _ index: Int32, hardware: UInt16 = CNL_ARPHRD_ETHER) -> NetworkReachability.Connection {
            classifier.kind(of: NetlinkLink(index: index, name: name, flags: 0, hardwareType: hardware, kind: nil))
        }
        #expect(kind("wlp2s0", 3) == .wifi)
        #expect(kind("wlan1", 4) == .wifi)
        #expect(kind("wwan0", 5, hardware: 65534) == .cellular)
        #expect(kind("dummy0", 6) == .other)
        #expect(kind("enp1s0", 7) == .ethernet)
        // Index 12 is not what this sysfs says stale0 is: ignore sysfs, fall back to the hardware type.
        #expect(kind("stale0", 12) == .ethernet)
        #expect(kind("../etc", 1) == .ethernet)
    }
}

#if os(Linux)
import CNetlink
import Glibc

/// Tells Ethernet from Wi-Fi, cellular and virtual links.
///
/// Virtual links announce themselves in netlink (`IFLA_INFO_KIND`: veth, bridge, wireguard, tun…).
/// Wi-Fi and cellular are only visible in sysfs (`DEVTYPE=wlan|wwan`, a `wireless` directory).
/// sysfs is trusted only when its `uevent` names the same interface index: a process in a
/// network namespace created without remounting `/sys` sees the host's sysfs.
struct LinkClassifier: Sendable {
    var sysfsRoot = "/sys/class/net"

    func kind(of link: NetlinkLink) -> NetworkReachability.Connection {
        if link.kind != nil { return .other }
        if let sysfs = sysfsFacts(for: link) {
            if sysfs.deviceType == "wwan" { return .cellular }
            if sysfs.deviceType == "wlan" || sysfs.hasWirelessDirectory { return .wifi }
            if sysfs.isVirtual { return .other }
        }
        return link.hardwareType == CNL_ARPHRD_ETHER ? .ethernet : .other
    }

    private struct SysfsFacts {
        var deviceType: String?
        var hasWirelessDirectory: Bool
        var isVirtual: Bool
    }

    private func sysfsFacts(for link: NetlinkLink) -> SysfsFacts? {
        guard !link.name.isEmpty, !link.name.contains("/"), link.name != "." && link.name != ".." else { return nil }
        let directory = "\(sysfsRoot)/\(link.name)"
        guard let uevent = readSmallFile("\(directory)/uevent") else { return nil }
        var fields: [String: String] = [:]
        for line in uevent.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard fields["IFINDEX"] == String(link.index), fields["INTERFACE"] == link.name else { return nil }
        return SysfsFacts(
            deviceType: fields["DEVTYPE"],
            hasWirelessDirectory: exists("\(directory)/wireless") || exists("\(directory)/phy80211"),
            isVirtual: (resolvedLink(directory) ?? "").contains("/devices/virtual/"))
    }

    private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    private func resolvedLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
#endif

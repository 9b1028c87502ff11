#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File checks done with `stat(2)`, whose answers are the same on every platform and release.
package enum FileStatus {
    /// What tells one state of a file from another: its identity, size and last change.
    package struct Snapshot: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec

        package static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    /// The file open as `descriptor` as it is now, or `nil` if it cannot be seen.
    package static func snapshot(of descriptor: Int32) -> Snapshot? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return Snapshot(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified)
    }

    /// Sets the last-modification time of the file at `path` (a final link itself, not its target)
    /// to `date`, to the nanosecond, leaving its access time; `false` when the system refuses.
    ///
    /// Foundation's `setAttributes([.modificationDate: …])` goes through `utimes(2)` in whole
    /// microseconds, and for a date whose fraction rounds up to 1,000,000 of them (about one in a
    /// million) it hands the kernel an invalid time and fails with EINVAL.
    package static func setModified(_ path: String, to date: Date) -> Bool {
        let interval = date.timeIntervalSince1970
        // Beyond ±2^52 s a Double has no fraction left, and Int(_:) must not meet a non-finite value.
        guard interval.isFinite, abs(interval) < 0x1p52 else { return false }
        let seconds = interval.rounded(.down)
        let nanoseconds = min(999_999_999, max(0, Int(((interval - seconds) * 1e9).rounded(.down))))
        let times = [timespec(tv_sec: 0, tv_nsec: omitTime), timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds)]
        return utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// `UTIME_OMIT` (leave this time as it is), a macro Swift does not import: `(1 << 30) - 2` in
    /// Linux's `<sys/stat.h>`, `-2` in Darwin's.
    #if canImport(Darwin)
    private static let omitTime = -2
    #else
    private static let omitTime = (1 << 30) - 2
    #endif

    /// The size of a readable regular file, or a typed error naming the path and the reason.
    static func regularFileSize(of url: URL) throws -> Int64 {
        let path = url.path
        guard url.isFileURL else {
            throw NetworkError.request(.unreadableBodyFile(path: url.absoluteString, reason: "not a file URL"))
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: "not a regular file"))
        }
        guard access(path, R_OK) == 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
        return Int64(info.st_size)
    }
}

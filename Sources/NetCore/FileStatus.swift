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
enum FileStatus {
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

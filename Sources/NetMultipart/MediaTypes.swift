/// Content types by file extension, the same on every platform (Linux has no system table to ask).
public enum MediaTypes: Sendable {
    /// The type for `filename`'s extension (case-insensitive), or `application/octet-stream`.
    public static func type(forFilename filename: String) -> String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return fallback }
        return byExtension[filename[filename.index(after: dot)...].lowercased()] ?? fallback
    }

    /// The type for unknown extensions.
    public static let fallback = "application/octet-stream"

    /// The table: common web, document, image, audio, video and archive formats.
    public static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv", "tsv": "text/tab-separated-values",
        "xml": "application/xml", "json": "application/json", "geojson": "application/geo+json", "ics": "text/calendar",
        "js": "text/javascript", "mjs": "text/javascript", "yaml": "application/yaml", "yml": "application/yaml",
        "pdf": "application/pdf", "rtf": "application/rtf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint", "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "epub": "application/epub+zip",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac",
        "m4a": "audio/mp4", "aac": "audio/aac", "opus": "audio/opus",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "avi": "video/x-msvideo",
        "mkv": "video/x-matroska", "ogv": "video/ogg",
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed", "zst": "application/zstd",
        "wasm": "application/wasm", "bin": "application/octet-stream",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}

import Foundation
import FoundationNetworking

/// MIME types for common file extensions. Linux has no system lookup (no `UTType`), so Curlfire
/// carries its own table.
enum MIMETypeTable {
    /// The MIME type for a path extension (case-insensitive), or `application/octet-stream` when the
    /// extension is not in the table.
    static func type(forPathExtension pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    private static let table: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "xml": "application/xml", "ics": "text/calendar",
        "js": "text/javascript", "mjs": "text/javascript", "yaml": "application/yaml", "yml": "application/yaml",
        // Data
        "json": "application/json", "geojson": "application/geo+json", "jsonld": "application/ld+json",
        "plist": "application/x-plist", "pdf": "application/pdf", "rtf": "application/rtf",
        "wasm": "application/wasm", "bin": "application/octet-stream",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "zst": "application/zstd", "rar": "application/vnd.rar",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        // Audio and video
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "m4a": "audio/mp4",
        "aac": "audio/aac", "flac": "audio/flac", "opus": "audio/opus", "mp4": "video/mp4", "m4v": "video/mp4",
        "mov": "video/quicktime", "webm": "video/webm", "avi": "video/x-msvideo", "mkv": "video/x-matroska",
        "mpeg": "video/mpeg", "mpg": "video/mpeg", "ogv": "video/ogg",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Office documents
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "epub": "application/epub+zip",
    ]
}

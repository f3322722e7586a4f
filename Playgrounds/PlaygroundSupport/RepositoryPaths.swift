// Where the repository's scripts are, wherever the playground is run from.
import Foundation

/// Paths inside the Curlfire repository this playground was built from.
public enum RepositoryPaths {
    /// The repository's root directory (found from this source file's path at build time).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // PlaygroundSupport
        .deletingLastPathComponent()  // Playgrounds
        .deletingLastPathComponent()

    /// A script of `scripts/`, e.g. `script("test-servers.py")`.
    public static func script(_ name: String) -> URL {
        root.appendingPathComponent("scripts").appendingPathComponent(name)
    }
}

// swift-tools-version:6.2
import PackageDescription

/// Script-style playgrounds, one per capability (`swift run <Name>`), sharing PlaygroundSupport,
/// each with the dependencies it needs beyond Curlfire (the ecosystem products' and their backends).
let playgrounds: [(name: String, dependencies: [Target.Dependency])] = [
    ("Downloads", []), ("Uploads", []), ("Pinning", []), ("Retry", ["CurlfireTesting"]), ("Streaming", []),
    ("Testing", ["CurlfireTesting"]), ("Caching", ["CurlfireTesting"]), ("WebSocket", ["CurlfireTestSupport"]),
    ("EventStream", ["CurlfireTesting"]),
    ("Observability", ["CurlfireMetrics", "CurlfireTracing",
                       .product(name: "Metrics", package: "swift-metrics"),
                       .product(name: "MetricsTestKit", package: "swift-metrics"),
                       .product(name: "Tracing", package: "swift-distributed-tracing"),
                       .product(name: "InMemoryTracing", package: "swift-distributed-tracing")]),
    ("OpenAPI", ["CurlfireOpenAPI", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                 .product(name: "HTTPTypes", package: "swift-http-types")]),
]

/// A playground's target (module) name: the product keeps the playground's name (`swift run Testing`),
/// but a module named `Testing` would shadow Swift Testing in the test runner.
func playgroundTarget(_ name: String) -> String {
    name == "Testing" ? "TestingPlayground" : name
}

let package = Package(
    name: "Curlfire",
    products: [
        .library(name: "Curlfire", targets: ["Curlfire"]),
        // Test-only: an in-process mock HTTP(S) server for users' unit tests. Apps never link it.
        .library(name: "CurlfireTesting", targets: ["CurlfireTesting"]),
        .executable(name: "Tour", targets: ["Tour"]),
        .executable(name: "DownloadMeasure", targets: ["DownloadMeasure"]),
        .executable(name: "curlfire", targets: ["CurlfireCLI"]),
        // Ecosystem integrations: each its own product and target, on Curlfire's public API and one
        // ecosystem package; the `Curlfire` target never imports them (docs/Integrations.md).
        .library(name: "CurlfireHTTPTypes", targets: ["CurlfireHTTPTypes"]),
        .library(name: "CurlfireMetrics", targets: ["CurlfireMetrics"]),
        .library(name: "CurlfireTracing", targets: ["CurlfireTracing"]),
        .library(name: "CurlfireOpenAPI", targets: ["CurlfireOpenAPI"]),
    ] + playgrounds.map { .executable(name: $0.name, targets: [playgroundTarget($0.name)]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // `swift package generate-documentation` (make docs); a command plugin, built only when run.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib for WebSocket permessage-deflate (RFC 7692): inflate/deflate with raw windows.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "Curlfire",
            dependencies: ["CCurl", "COpenSSL", "CZlib", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "CurlfireTesting",
            dependencies: ["Curlfire", "COpenSSL"]
        ),
        .executableTarget(
            name: "Tour",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Tour"
        ),
        .executableTarget(
            name: "DownloadMeasure",
            dependencies: ["Curlfire"],
            path: "Playgrounds/DownloadMeasure"
        ),
        .target(
            name: "PlaygroundSupport",
            dependencies: ["CurlfireTestSupport", "COpenSSL"],
            path: "Playgrounds/PlaygroundSupport"
        ),
    ] + playgrounds.map {
        .executableTarget(name: playgroundTarget($0.name), dependencies: ["Curlfire", "PlaygroundSupport"] + $0.dependencies,
                          path: "Playgrounds/\($0.name)")
    } + [
        .executableTarget(
            name: "ReachabilityProbe",
            dependencies: ["Curlfire", "CurlfireTesting"],
            path: "Tests/ReachabilityProbe"
        ),
        .executableTarget(
            name: "CurlfireSoak",
            dependencies: ["Curlfire", "CurlfireTestSupport"],
            path: "Tests/Soak"
        ),
        .target(
            name: "CurlfireTestSupport",
            path: "Tests/CurlfireTestSupport"
        ),
        .testTarget(
            name: "CurlfireTests",
            dependencies: ["Curlfire", "CurlfireTestSupport", "COpenSSL", "CCurl"]
        ),
        .testTarget(
            name: "CurlfireTestingTests",
            dependencies: ["Curlfire", "CurlfireTesting"]
        ),
        .testTarget(
            name: "CurlfireIntegrationTests",
            dependencies: ["Curlfire", "CurlfireTestSupport", "CurlfireTesting", "ReachabilityProbe",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // The `curlfire` command-line client: pure logic in CurlfireCLIKit, a thin executable.
        .target(
            name: "CurlfireCLIKit",
            dependencies: ["Curlfire"],
            path: "Sources/CurlfireCLI/Kit"
        ),
        .executableTarget(
            name: "CurlfireCLI",
            dependencies: ["Curlfire", "CurlfireCLIKit",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/CurlfireCLI/Command"
        ),
        .testTarget(
            name: "CurlfireCLITests",
            dependencies: ["CurlfireCLIKit", "CurlfireCLI", "CurlfireTestSupport", "CurlfireTesting"]
        ),
        // MARK: Ecosystem integrations (their tests share the integration tests' TestServers.swift
        // through a symbolic link in each Support folder).
        .target(
            name: "CurlfireHTTPTypes",
            dependencies: ["Curlfire",
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "HTTPTypesFoundation", package: "swift-http-types")]
        ),
        .testTarget(
            name: "CurlfireHTTPTypesTests",
            dependencies: ["Curlfire", "CurlfireHTTPTypes", "CurlfireTestSupport"]
        ),
        .target(
            name: "CurlfireMetrics",
            dependencies: ["Curlfire", .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        .testTarget(
            name: "CurlfireMetricsTests",
            dependencies: ["Curlfire", "CurlfireMetrics", "CurlfireTestSupport",
                           .product(name: "MetricsTestKit", package: "swift-metrics")]
        ),
        .target(
            name: "CurlfireTracing",
            dependencies: ["Curlfire", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),
        .testTarget(
            name: "CurlfireTracingTests",
            dependencies: ["Curlfire", "CurlfireTracing", "CurlfireTestSupport",
                           .product(name: "InMemoryTracing", package: "swift-distributed-tracing")]
        ),
        // HTTPTypes is swift-openapi-runtime's own dependency: ClientTransport is written in its types.
        .target(
            name: "CurlfireOpenAPI",
            dependencies: ["Curlfire",
                           .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                           .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Generated/ holds a client for part of httpbin, generated ONCE from openapi.yaml by
        // swift-openapi-generator (docs/Integrations.md says how): builds never run the generator.
        // Playgrounds/OpenAPI compiles the same files through a symbolic link.
        .testTarget(
            name: "CurlfireOpenAPITests",
            dependencies: ["Curlfire", "CurlfireOpenAPI", "CurlfireTestSupport", "CurlfireTesting",
                           .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                           .product(name: "HTTPTypes", package: "swift-http-types")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

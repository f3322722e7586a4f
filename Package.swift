// swift-tools-version:6.2
import PackageDescription

/// Script-style playgrounds, one per capability (`swift run <Name>`), sharing PlaygroundSupport,
/// each with the dependencies it needs beyond Curlfire (the ecosystem products' and their backends).
let playgrounds: [(name: String, dependencies: [Target.Dependency])] = [
    ("Downloads", []), ("Uploads", []), ("Pinning", []), ("Retry", ["CurlfireTesting"]), ("Streaming", []),
    ("Testing", ["CurlfireTesting"]), ("Caching", ["CurlfireTesting"]), ("WebSocket", ["CurlfireTestSupport"]),
    ("EventStream", ["CurlfireTesting"]),
    ("Observability", ["CurlfireMetrics", "CurlfireTracing", "CurlfireTesting",
                       traitProduct("Metrics", package: "swift-metrics", trait: "Metrics"),
                       traitProduct("MetricsTestKit", package: "swift-metrics", trait: "Metrics"),
                       traitProduct("Tracing", package: "swift-distributed-tracing", trait: "Tracing"),
                       traitProduct("InMemoryTracing", package: "swift-distributed-tracing", trait: "Tracing")]),
    ("OpenAPI", ["CurlfireOpenAPI",
                 traitProduct("OpenAPIRuntime", package: "swift-openapi-runtime", trait: "OpenAPI"),
                 traitProduct("HTTPTypes", package: "swift-http-types", trait: "OpenAPI")]),
]

/// An ecosystem package's product, linked only when `trait` is enabled (see `traits` below).
func traitProduct(_ name: String, package: String, trait: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [trait]))
}

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
    // Every ecosystem package is used only under a trait, all off by default: an app that depends on
    // `Curlfire` alone never resolves, fetches or builds them (SwiftPM 6.2+ leaves a dependency used
    // only under a disabled trait out of the graph). An app enables the one it uses, e.g.
    // `.package(url: …, from: "0.1.0", traits: ["Metrics"])`; this repository's own builds pass
    // `--enable-all-traits` (the Makefile's SWIFT_TRAITS). Without its trait a target compiles empty.
    traits: [
        .trait(name: "HTTPTypes", description: "The CurlfireHTTPTypes product (swift-http-types)."),
        .trait(name: "Metrics", description: "The CurlfireMetrics product (swift-metrics)."),
        .trait(name: "Tracing", description: "The CurlfireTracing product (swift-distributed-tracing)."),
        .trait(name: "OpenAPI", description: "The CurlfireOpenAPI product (swift-openapi-runtime, swift-http-types)."),
        .trait(name: "CLI", description: "The curlfire command-line client (swift-argument-parser)."),
        .default(enabledTraits: []),
    ],
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
                           traitProduct("ArgumentParser", package: "swift-argument-parser", trait: "CLI")],
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
                           traitProduct("HTTPTypes", package: "swift-http-types", trait: "HTTPTypes"),
                           traitProduct("HTTPTypesFoundation", package: "swift-http-types", trait: "HTTPTypes")]
        ),
        .testTarget(
            name: "CurlfireHTTPTypesTests",
            dependencies: ["Curlfire", "CurlfireHTTPTypes", "CurlfireTestSupport"]
        ),
        .target(
            name: "CurlfireMetrics",
            dependencies: ["Curlfire", traitProduct("CoreMetrics", package: "swift-metrics", trait: "Metrics")]
        ),
        .testTarget(
            name: "CurlfireMetricsTests",
            dependencies: ["Curlfire", "CurlfireMetrics", "CurlfireTestSupport",
                           traitProduct("MetricsTestKit", package: "swift-metrics", trait: "Metrics")]
        ),
        .target(
            name: "CurlfireTracing",
            dependencies: ["Curlfire", traitProduct("Tracing", package: "swift-distributed-tracing", trait: "Tracing")]
        ),
        .testTarget(
            name: "CurlfireTracingTests",
            dependencies: ["Curlfire", "CurlfireTracing", "CurlfireTestSupport",
                           traitProduct("InMemoryTracing", package: "swift-distributed-tracing", trait: "Tracing")]
        ),
        // HTTPTypes is swift-openapi-runtime's own dependency: ClientTransport is written in its types.
        .target(
            name: "CurlfireOpenAPI",
            dependencies: ["Curlfire",
                           traitProduct("OpenAPIRuntime", package: "swift-openapi-runtime", trait: "OpenAPI"),
                           traitProduct("HTTPTypes", package: "swift-http-types", trait: "OpenAPI")]
        ),
        // Generated/ holds a client for part of httpbin, generated ONCE from openapi.yaml by
        // swift-openapi-generator (docs/Integrations.md says how): builds never run the generator.
        // Playgrounds/OpenAPI compiles the same files through a symbolic link.
        .testTarget(
            name: "CurlfireOpenAPITests",
            dependencies: ["Curlfire", "CurlfireOpenAPI", "CurlfireTestSupport", "CurlfireTesting",
                           traitProduct("OpenAPIRuntime", package: "swift-openapi-runtime", trait: "OpenAPI"),
                           traitProduct("HTTPTypes", package: "swift-http-types", trait: "OpenAPI")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
    ],
    swiftLanguageModes: [.v6]
)


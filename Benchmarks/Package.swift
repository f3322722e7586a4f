// swift-tools-version:6.0
// Curlfire's benchmarks, in their own package so AsyncHTTPClient (and the swift-nio graph) never
// enters the library's dependency graph. `make bench-build` builds it, `make bench` runs it;
// method and latest results in docs/Performance.md.
import PackageDescription

let package = Package(
    name: "CurlfireBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Curlfire", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        // The WebSocket benchmark's peer client (WebSocketBench).
        .package(url: "https://github.com/vapor/websocket-kit", from: "2.15.0"),
        // The server-sent event benchmark's peer decoder (SSEBench).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        // The ceiling: libcurl driven directly from C, no Swift on the hot path.
        .target(
            name: "CRawCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "CurlfireBench",
            dependencies: [
                "CRawCurl",
                .product(name: "Curlfire", package: "Curlfire"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Curlfire's WebSocket next to websocket-kit, against a swift-nio echo server.
        .executableTarget(
            name: "WebSocketBench",
            dependencies: [
                .product(name: "Curlfire", package: "Curlfire"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // Server-sent event parsing: Curlfire next to swift-openapi-runtime's decoder, and end to end.
        .executableTarget(
            name: "SSEBench",
            dependencies: [
                .product(name: "Curlfire", package: "Curlfire"),
                .product(name: "CurlfireTesting", package: "Curlfire"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

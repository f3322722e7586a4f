// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Curlfire",
    products: [
        .library(name: "Curlfire", targets: ["Curlfire"]),
        .executable(name: "Tour", targets: ["Tour"]),
        .executable(name: "DownloadMeasure", targets: ["DownloadMeasure"]),
        .executable(name: "Downloads", targets: ["Downloads"]),
        .executable(name: "Uploads", targets: ["Uploads"]),
        .executable(name: "Pinning", targets: ["Pinning"]),
        .executable(name: "Retry", targets: ["Retry"]),
        .executable(name: "Streaming", targets: ["Streaming"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
        .target(
            name: "Curlfire",
            dependencies: ["CCurl", "COpenSSL", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "Tour",
            dependencies: ["Curlfire"],
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
        .executableTarget(
            name: "Downloads",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Downloads"
        ),
        .executableTarget(
            name: "Uploads",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Uploads"
        ),
        .executableTarget(
            name: "Pinning",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Pinning"
        ),
        .executableTarget(
            name: "Retry",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Retry"
        ),
        .executableTarget(
            name: "Streaming",
            dependencies: ["Curlfire", "PlaygroundSupport"],
            path: "Playgrounds/Streaming"
        ),
        .executableTarget(
            name: "ReachabilityProbe",
            dependencies: ["Curlfire"],
            path: "Tests/ReachabilityProbe"
        ),
        .target(
            name: "CurlfireTestSupport",
            path: "Tests/CurlfireTestSupport"
        ),
        .testTarget(
            name: "CurlfireTests",
            dependencies: ["Curlfire", "CurlfireTestSupport", "COpenSSL"]
        ),
        .testTarget(
            name: "CurlfireIntegrationTests",
            dependencies: ["Curlfire", "CurlfireTestSupport", "ReachabilityProbe",
                           .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

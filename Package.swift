// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Curlfire",
    products: [
        .library(name: "Curlfire", targets: ["Curlfire"]),
        .executable(name: "Tour", targets: ["Tour"]),
        .executable(name: "DownloadMeasure", targets: ["DownloadMeasure"]),
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
        .executableTarget(
            name: "ReachabilityProbe",
            dependencies: ["Curlfire"],
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

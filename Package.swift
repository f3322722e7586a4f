// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Curlfire",
    products: [
        .library(name: "Curlfire", targets: ["Curlfire"]),
        .executable(name: "Tour", targets: ["Tour"]),
        .executable(name: "DownloadMeasure", targets: ["DownloadMeasure"]),
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
            dependencies: ["CCurl", "COpenSSL"]
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
        .testTarget(
            name: "CurlfireTests",
            dependencies: ["Curlfire"]
        ),
        .testTarget(
            name: "CurlfireIntegrationTests",
            dependencies: ["Curlfire"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// Layers (docs/architecture.md): SessionKit (pure model) ← C modules ← RenderEngine ← Farm ← reel.
let package = Package(
    name: "ReelFarm",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reel", targets: ["ReelCLI"]),
        .library(name: "SessionKit", targets: ["SessionKit"]),
        .library(name: "RenderEngine", targets: ["RenderEngine"]),
        .library(name: "Farm", targets: ["Farm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SHA-256 of sources (sidecar, content ids) and of chunks on the wire.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    ],
    targets: [
        // C libraries from Debian, found with pkg-config; shims turn macros into functions.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                                         "libswscale-dev", "libavfilter-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),

        // The filters' per-pixel math lives with their parameters here (docs/filters.md).
        .target(name: "SessionKit", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(
            name: "RenderEngine",
            dependencies: ["SessionKit", "CFFmpeg", "CHeif", .product(name: "Crypto", package: "swift-crypto")],
            // Per-pixel loops run 20-50x slower unoptimised; tests render real video in debug builds.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .target(
            name: "Farm",
            dependencies: ["SessionKit", "RenderEngine", "CZeroMQ", "CLZ4", "CSQLite",
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "ReelCLI",
            dependencies: [
                "SessionKit", "RenderEngine", "Farm",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // bench/: the coordinator under load from simulated workers (docs/benchmarks.md).
        .executableTarget(name: "coordinator-load", dependencies: ["Farm", "RenderEngine", "SessionKit"],
                          path: "bench/CoordinatorLoad"),
        .target(name: "ReelTestSupport", dependencies: ["SessionKit"]),

        .testTarget(name: "SessionKitTests", dependencies: ["SessionKit", "ReelTestSupport"]),
        .testTarget(name: "RenderEngineTests", dependencies: ["RenderEngine", "SessionKit", "ReelTestSupport"]),
        .testTarget(name: "FarmTests", dependencies: ["Farm", "ReelTestSupport"]),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "ReelTestSupport", "SessionKit"]),
    ]
)

// swift-tools-version:6.0
import PackageDescription

// RenderEngine's pixel loops are compiled for x86-64-v3 (AVX2,
// every x86 server since 2013): twice as fast as the 2003 baseline, and the same bits —
// integer and IEEE arithmetic do not depend on the instructions (no fused multiply-add is
// ever formed), so builds for different processors render identical outputs.
// `REEL_TARGET_CPU=x86-64 swift build` builds for older processors; `reel` refuses to
// start on a processor its engine was not built for (docs/rendering.md, "Processors").
let targetCPU = Context.environment["REEL_TARGET_CPU"] ?? "haswell"
#if arch(x86_64)
let pixelLoops: [SwiftSetting] = [.unsafeFlags(["-target-cpu", targetCPU])]
let engineCPU: [SwiftSetting] = targetCPU == "haswell" ? [.define("ENGINE_NEEDS_X86_64_V3")] : []
#else
let pixelLoops: [SwiftSetting] = []
let engineCPU: [SwiftSetting] = []
#endif

// Layers (docs/architecture.md): SessionKit (pure model) ← C modules ← RenderEngine ← Farm ← reel.
let package = Package(
    name: "ReelFarm",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reel", targets: ["ReelCLI"]),
        .library(name: "SessionKit", targets: ["SessionKit"]),
        .library(name: "RenderEngine", targets: ["RenderEngine"]),
        .library(name: "Farm", targets: ["Farm"]),
        // For apps that send exports (docs/api.md, "Clients"): Foundation and the session
        // model only, no engine, no system library.
        .library(name: "ReelFarmClient", targets: ["ReelFarmClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SHA-256 of sources (sidecar, content ids) and of chunks on the wire.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // Operations (docs/operations.md): one log line per event, Prometheus metrics served
        // over HTTP, and coordinator/worker as services that shut down gracefully on signals.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Already under Hummingbird: named for the HTTP API's connection budget, a channel
        // handler over HTTP parts (docs/operations.md, "Limits").
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.25.0"),
    ],
    targets: [
        // C libraries from Debian, found with pkg-config; shims turn macros into functions.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                                         "libswscale-dev", "libavfilter-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The job store on a PostgreSQL server, for coordinators that stand by for each other
        // (docs/architecture.md, "Decisions": libpq, not postgres-nio).
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // Media by URL: HTTP ranges from origins (docs/operations.md, "Sources by URL").
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // glibc's malloc.h (mallopt): the C library itself, no package.
        .systemLibrary(name: "CMalloc"),

        // The filters' per-pixel math lives with their parameters here (docs/filters.md). The
        // portable model carries no compiler flags, so other packages can depend on it by
        // version; built for the baseline processor its loops give the same bits, about 4 %
        // slower on the heaviest effects (docs/architecture.md, "Decisions").
        .target(name: "SessionKit"),
        // The wire contract from the farm to its clients (docs/protocol.md, docs/api.md): job
        // and batch statuses, error codes and their HTTP statuses. No dependency, so the farm
        // and its HTTP client library share one definition.
        .target(name: "FarmWire"),
        // The HTTP API's client (docs/api.md, "Clients"): async/await over URLSession.
        .target(name: "ReelFarmClient", dependencies: ["SessionKit", "FarmWire"]),
        .target(
            name: "RenderEngine",
            dependencies: ["SessionKit", "FarmWire", "CFFmpeg", "CHeif", "CCurl", "CMalloc", .product(name: "Crypto", package: "swift-crypto")],
            // Per-pixel loops run 20-50x slower unoptimised; tests render real video in debug builds.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))] + pixelLoops
        ),
        .target(
            name: "Farm",
            dependencies: ["SessionKit", "FarmWire", "RenderEngine", "CZeroMQ", "CLZ4", "CSQLite", "CPostgres",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "CoreMetrics", package: "swift-metrics"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // The HTTP side of a farm process: the API and its dashboard (docs/api.md), /metrics,
        // /healthz and the other operators' routes (docs/operations.md).
        .target(
            name: "FarmHTTP",
            dependencies: ["Farm", "RenderEngine", "SessionKit",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .executableTarget(
            name: "ReelCLI",
            dependencies: [
                "SessionKit", "RenderEngine", "Farm", "FarmHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: engineCPU
        ),
        // bench/: the coordinator under load from simulated workers (docs/benchmarks.md).
        .executableTarget(name: "coordinator-load", dependencies: ["Farm", "FarmWire", "RenderEngine", "SessionKit",
                                                                 .product(name: "Logging", package: "swift-log")],
                          path: "bench/CoordinatorLoad"),
        // bench/assembly: the output written as its chunks arrive (docs/benchmarks.md, "Assembly").
        .executableTarget(name: "assembly-bench", dependencies: ["RenderEngine", "SessionKit"], path: "bench/Assembly"),
        .target(name: "ReelTestSupport", dependencies: ["SessionKit"]),

        .testTarget(name: "SessionKitTests", dependencies: ["SessionKit", "ReelTestSupport"]),
        .testTarget(name: "RenderEngineTests", dependencies: ["RenderEngine", "SessionKit", "CFFmpeg", "ReelTestSupport"]),
        .testTarget(name: "FarmTests", dependencies: ["Farm", "RenderEngine", "SessionKit", "ReelTestSupport",
                                                      .product(name: "Logging", package: "swift-log")]),
        // The HTTP side in process: routes, error mapping, byte ranges (no sockets, no processes).
        .testTarget(name: "FarmHTTPTests", dependencies: ["FarmHTTP", "Farm", "ReelTestSupport",
                                                          .product(name: "HTTPTypes", package: "swift-http-types"),
                                                          .product(name: "Hummingbird", package: "hummingbird"),
                                                          .product(name: "HummingbirdTesting", package: "hummingbird")]),
        // Farm and RenderEngine: tests that speak the wire protocol as a hostile client would.
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "ReelTestSupport", "SessionKit", "Farm", "RenderEngine", "ReelFarmClient", "FarmWire",
                                                       .product(name: "Crypto", package: "swift-crypto")]),
    ]
)
